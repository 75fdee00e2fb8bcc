/**
 * Tool errors of the MCP server: every failed tool call is an `isError` result whose text starts
 * with a stable snake_case code, and whose `_meta["tessera/error"]` carries `{code, message, path}`
 * (adr/0030-mcp-tool-errors-and-limits.md). No SDK import: the CLI and tests may use these freely.
 * @module
 */
import type { z } from "zod";
import { TesseraError, type TesseraErrorCode } from "../platform/errors.js";

/** Codes the server itself gives; library errors pass their own `TesseraError` code through. */
export type McpToolErrorCode =
  | "invalid_arguments"
  | "input_too_large"
  | "unknown_tool"
  | "unknown_action"
  | "workspace_missing"
  | "policy_missing"
  | "internal_error";

/** A tool error as data: what `_meta["tessera/error"]` holds. */
export interface ToolErrorInfo {
  readonly code: McpToolErrorCode | TesseraErrorCode;
  readonly message: string;
  readonly path: string | null;
}

/** The `_meta` key of a tool error's details. */
export const ERROR_META_KEY = "tessera/error";

/** A `TesseraError` thrown by a tool handler becomes a tool error with its code. */
export function toolErrorOf(err: unknown): ToolErrorInfo {
  if (err instanceof TesseraError) {
    // the path is already part of the message (TesseraError prefixes it)
    return { code: err.code, message: err.message, path: err.path ?? null };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: "internal_error", message: oneLine(message), path: null };
}

/** `a.b[0].c` from a zod issue path. */
export function pathString(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out;
}

/**
 * The first issue of a failed parse as a tool error: `too_big` on a string or list is
 * `input_too_large`, anything else `invalid_arguments`. `hints` replace the message for a known
 * mistake (by unknown key).
 */
export function toolErrorOfIssues(
  issues: readonly z.core.$ZodIssue[],
  hints: Readonly<Record<string, string>> = {},
): ToolErrorInfo {
  const issue = issues[0];
  if (issue === undefined) return { code: "invalid_arguments", message: "invalid arguments", path: null };
  const path = pathString(issue.path);
  // only sizes are `input_too_large`; a number over its maximum (a threshold of 1.5) is invalid
  const tooLarge = issue.code === "too_big" && (issue.origin === "string" || issue.origin === "array");
  const code = tooLarge ? "input_too_large" : "invalid_arguments";
  let message: string;
  switch (issue.code) {
    case "unrecognized_keys": {
      const key = issue.keys[0] ?? "";
      message = hints[key] ?? `unknown argument \`${issue.keys.join("`, `")}\``;
      break;
    }
    case "invalid_type":
      message =
        issue.input === undefined
          ? `missing required ${issue.path.length <= 1 ? "argument" : "field"}`
          : `expected ${issue.expected}, got ${describeValue(issue.input)}`;
      break;
    case "too_big":
      message =
        issue.origin === "string"
          ? `string longer than ${String(issue.maximum)} characters`
          : issue.origin === "array"
            ? `more items than ${String(issue.maximum)}`
            : `must be at most ${String(issue.maximum)}`;
      break;
    case "too_small":
      message =
        issue.origin === "string"
          ? "must not be empty"
          : issue.origin === "array"
            ? `needs at least ${String(issue.minimum)} item${Number(issue.minimum) === 1 ? "" : "s"}`
            : `must be at least ${String(issue.minimum)}`;
      break;
    case "invalid_value":
      message = `expected one of ${issue.values.map((v) => `\`${String(v)}\``).join(", ")}`;
      break;
    default:
      message = lower(issue.message);
  }
  return { code, message: path === "" ? message : `${path}: ${message}`, path: path === "" ? null : path };
}

/** What kind of JSON value `v` is, with its article: "a string", "an array", "null". */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return "a string";
  return `a ${typeof v}`;
}

function lower(s: string): string {
  return oneLine(s.charAt(0).toLowerCase() + s.slice(1)).replace(/\.$/, "");
}

function oneLine(s: string): string {
  return s.split("\n")[0] ?? "";
}
