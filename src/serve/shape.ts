/**
 * Checking a parsed body's shape by hand, so each refusal names its field as a path
 * (`arguments.order_id`, `input.evidence[0].text`): objects with known keys only, and values
 * nested no deeper than digesting and grounding walk safely.
 * @module
 */
import { isObject } from "../platform/objects.js";
import { HttpError } from "./errors.js";

/** The deepest nesting a body's values may have (as the MCP tools allow, adr/0030). */
export const MAX_DEPTH = 32;

/** A key as a path segment: plain names as they are, anything else quoted. */
export function segment(parent: string, key: string): string {
  const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
  return parent === "" ? name : `${parent}.${name}`;
}

/** The body as an object whose keys are all in `allowed`. */
export function objectWith(value: unknown, allowed: readonly string[], what: string): Record<string, unknown> {
  if (!isObject(value)) throw new HttpError("body_invalid", `(body): expected a json object ${what}`);
  for (const k of Object.keys(value))
    if (!allowed.includes(k))
      throw new HttpError(
        "unknown_key",
        `${segment("", k)}: unknown key (the body has ${allowed.map((a) => `\`${a}\``).join(", ")})`,
      );
  return value;
}

/** Refuse `value` when it nests deeper than MAX_DEPTH below `path`. */
export function checkDepth(value: unknown, path: string): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_DEPTH) throw new HttpError("input_too_large", `${path}: nests deeper than ${MAX_DEPTH} levels`);
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push([item, depth + 1]);
  }
}
