/**
 * Trusted context for `check_tool_call`: it comes only from the server's configuration — a
 * `--context` file and/or the `TESSERA_CONTEXT_JSON` environment variable — never from the caller's
 * arguments (specs/bound-values.md; adr/0031-mcp-trusted-context.md).
 * @module
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { TesseraError } from "../platform/errors.js";
import { parseJson } from "../platform/json.js";
import { isObject } from "../platform/objects.js";

/** The environment variable holding trusted context as a JSON object. */
export const CONTEXT_ENV = "TESSERA_CONTEXT_JSON";

/** Trusted context as loaded: its values (the root's `TrustedContext`), the keys it binds and where it came from. */
export interface LoadedContext {
  /** The context passed to `gate.check`: environment first, then the file (the file wins a key). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Keys the gate binds (scalar fields), in order. */
  readonly bound: readonly string[];
  /** Where the values came from: `"env"` and/or `"file"`. */
  readonly origins: readonly ("env" | "file")[];
}

/** No trusted context at all. */
export const EMPTY_CONTEXT: LoadedContext = { values: {}, bound: [], origins: [] };

/** Read trusted context from a `--context` file and the environment; bad JSON is a configuration error. */
export function loadTrustedContext(options: {
  file?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}): LoadedContext {
  const origins: ("env" | "file")[] = [];
  let values: Record<string, unknown> = {};
  const fromEnv = options.env?.[CONTEXT_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    values = { ...values, ...parseObject(fromEnv, `\`${CONTEXT_ENV}\``) };
    origins.push("env");
  }
  if (options.file !== undefined) {
    const path = resolve(options.cwd ?? process.cwd(), options.file);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      throw new TesseraError("context_invalid", `cannot read context file \`${options.file}\``);
    }
    values = { ...values, ...parseObject(text, `context file \`${options.file}\``) };
    origins.push("file");
  }
  return trustedContext(values, origins);
}

/** Trusted context from values the host already holds (library use). */
export function trustedContext(
  values: Readonly<Record<string, unknown>>,
  origins: readonly ("env" | "file")[] = [],
): LoadedContext {
  if (!isObject(values)) {
    throw new TesseraError("context_invalid", "trusted context must be a JSON object");
  }
  const bound = Object.keys(values).filter((k) => isScalar(values[k]));
  return { values, bound, origins };
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (err) {
    if (err instanceof TesseraError) throw new TesseraError("context_invalid", `${what}: ${err.message}`);
    throw new TesseraError("context_invalid", `${what} is not valid JSON`);
  }
  if (!isObject(value)) {
    throw new TesseraError("context_invalid", `${what} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

function isScalar(v: unknown): boolean {
  return (
    v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean" || typeof v === "bigint"
  );
}
