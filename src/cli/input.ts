/**
 * Reading a command's input files: `-` is stdin, anything else a path against the working folder.
 * JSON goes through the strict reader (src/platform/json.ts), so a duplicate key or an inexact number
 * is a usage error naming the file and the value's path.
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Io } from "./io.js";

/** All of stdin as UTF-8 text. */
export async function readStdin(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** The text of an input (`-` is stdin); rejects with the file system's error for a path. */
export async function readInputText(spec: string, io: Io): Promise<string> {
  return spec === "-" ? readStdin(io) : readFile(resolve(io.cwd, spec), "utf8");
}
