/**
 * Reading JSON someone hands you (a tool call, a trusted context, a proposal, claims, a grading input,
 * a JSON-RPC message) so that every later reader sees the same values. `JSON.parse` keeps the last of
 * two equal keys where another reader keeps the first, and rounds `9007199254740993` to `…992`, so
 * what was checked and what runs could differ. Both are errors here, with the path of the value
 * (specs/json-input.md).
 * @module
 */
import { numberLiteralProblem } from "../core/numbers.js";
import type { JsonInputCode } from "./error-codes.js";
import { TesseraError } from "./errors.js";

/** Codes `parseJson` throws with, besides JSON.parse's own `SyntaxError`. */
export type { JsonInputCode };

type Frame =
  | { readonly array: false; readonly keys: Set<string>; key: string; expectKey: boolean }
  | { readonly array: true; index: number };

function pathOf(stack: readonly Frame[], depth: number): string {
  let out = "";
  for (let i = 0; i < depth; i++) {
    const f = stack[i]!;
    out += f.array ? `[${f.index}]` : out === "" ? f.key : `.${f.key}`;
  }
  return out === "" ? "(root)" : out;
}

/** A problem `scanJson` found: its code, the path (of the object for a key, of the value for a number). */
export interface JsonProblem {
  readonly code: JsonInputCode;
  readonly path: string;
  readonly message: string;
  /** For `duplicate_key`: the key. */
  readonly key?: string;
}

const NUMBER_CHAR = /[0-9eE.+-]/;

/**
 * The first duplicate key or inexact number of a valid JSON text, or null. The text must already have
 * parsed: this scan does not validate syntax.
 */
export function scanJson(text: string, numbers = true): JsonProblem | null {
  const stack: Frame[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      for (;;) {
        const d = text.charCodeAt(j);
        if (d === 0x22) break;
        j += d === 0x5c /* \ */ ? 2 : 1;
      }
      const top = stack[stack.length - 1];
      if (top !== undefined && !top.array && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) {
          return {
            code: "duplicate_key",
            path: pathOf(stack, stack.length - 1),
            key,
            message: `duplicate key \`${key}\``,
          };
        }
        top.key = key;
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */) stack.push({ array: false, keys: new Set(), key: "", expectKey: true });
    else if (c === 0x5b /* [ */) stack.push({ array: true, index: 0 });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top !== undefined) {
        if (top.array) top.index++;
        else top.expectKey = true;
      }
    } else if (numbers && (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39))) {
      let j = i + 1;
      while (j < n && NUMBER_CHAR.test(text[j]!)) j++;
      const problem = numberLiteralProblem(text.slice(i, j));
      if (problem !== null) {
        return { code: problem.code, path: pathOf(stack, stack.length), message: problem.message };
      }
      i = j - 1;
    }
  }
  return null;
}

/**
 * The first duplicate key of a valid JSON text, with the path of its object (`fields[0]`, `(root)`),
 * or null; numbers are not looked at.
 */
export function findDuplicateKey(text: string): { readonly path: string; readonly key: string } | null {
  const problem = scanJson(text, false);
  return problem === null ? null : { path: problem.path, key: problem.key! };
}

/**
 * `JSON.parse` for input from outside, with a leading byte-order mark ignored: a duplicate key, a
 * number that does not name exactly the double it reads as, or a whole number beyond ±(2^53 − 1)
 * throws `TesseraError` with the value's path (`arguments.order_id: number … is beyond …`). Invalid
 * syntax throws `JSON.parse`'s own `SyntaxError`.
 */
export function parseJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const value: unknown = JSON.parse(body);
  // a string, boolean or null document holds no key and no number
  if ((typeof value === "object" && value !== null) || typeof value === "number") {
    const problem = scanJson(body);
    if (problem !== null) throw new TesseraError(problem.code, problem.message, problem.path);
  }
  return value;
}

/**
 * A parser's error as one line of ours: its first line, lower-cased first letter, no trailing period
 * or colon (ours as they are).
 */
export function parseErrorLine(err: unknown): string {
  if (err instanceof TesseraError) return err.message; // its path may start with an upper-case key
  // yaml ends the first line with ":" before its excerpt of the source
  const line = String(err instanceof Error ? err.message : err)
    .split("\n")[0]!
    .trim()
    .replace(/[.:]$/, "");
  return line.charAt(0).toLowerCase() + line.slice(1);
}
