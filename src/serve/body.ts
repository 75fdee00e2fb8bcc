/**
 * A request body read with a size limit and parsed by the strict JSON reader of
 * src/platform/json.ts, so a duplicate key or a rounded number is refused with its path rather
 * than read one way here and another by the client.
 * @module
 */
import type { IncomingMessage } from "node:http";
import { TesseraError } from "../platform/errors.js";
import { parseJson } from "../platform/json.js";
import { HttpError } from "./errors.js";

/** The largest body read by default, in bytes. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Read and parse a JSON body of at most `maxBytes`; every failure is an `HttpError`. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, signal?: AbortSignal): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const tooLarge = () => new HttpError("body_too_large", `(body): the body is over ${maxBytes} bytes`);
  if (type !== "application/json") {
    req.resume();
    throw new HttpError(
      "content_type_unsupported",
      `content-type: expected \`application/json\`, got \`${type === "" ? "nothing" : type.slice(0, 64)}\``,
    );
  }
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes) {
    req.resume(); // read and drop it, so the client gets the answer rather than a reset connection
    throw tooLarge();
  }
  const text = await readText(req, maxBytes, signal);
  if (text === null) throw tooLarge();
  if (text.trim() === "") throw new HttpError("json_invalid", "(body): the body is empty; expected a json object");
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof TesseraError && (err.code === "duplicate_key" || err.code.startsWith("number_")))
      throw new HttpError(err.code as "duplicate_key" | "number_unsafe" | "number_inexact", err.message);
    const detail = err instanceof Error ? err.message.split("\n")[0]! : "invalid json";
    throw new HttpError("json_invalid", `(body): not valid json (${detail.replace(/^./, (c) => c.toLowerCase())})`);
  }
}

/** The body as text, or null past `maxBytes`; read to the end either way (stopping early would reset the connection). */
function readText(req: IncomingMessage, maxBytes: number, signal?: AbortSignal): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    const cut = () => reject(new HttpError("json_invalid", "(body): the connection closed before the body ended"));
    req.once("end", () => resolve(size > maxBytes ? null : Buffer.concat(chunks).toString("utf8")));
    req.once("error", cut);
    // a client that goes away mid-body fires neither `end` nor `error`: without this the read, and
    // the admission slot it holds, would wait forever
    req.once("close", () => {
      if (!req.complete) cut();
    });
    // the request's deadline passed: stop waiting for the rest now, so its admission slot is free
    // before the refusal is even written
    signal?.addEventListener(
      "abort",
      () => reject(new HttpError("deadline_exceeded", "(body): not received in time")),
      {
        once: true,
      },
    );
  });
}
