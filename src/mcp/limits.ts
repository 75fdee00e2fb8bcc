/**
 * Size limits on tool arguments, so one request cannot exhaust the server (adr/0030). Per-field
 * limits live in the zod schemas; these bound a whole request before it is parsed.
 * @module
 */

/** Every size limit of the MCP tools, in characters (UTF-16 code units) or items. */
export const LIMITS = {
  /** `ground` and `draft_action` questions. */
  question: 2_000,
  /** Action kinds, tool names, evidence ids and other identifiers. */
  name: 256,
  /** A claim's text or an answer. */
  text: 100_000,
  /** One evidence record's text. */
  recordText: 1_000_000,
  /** Claims in one `verify_claims` call. */
  claims: 1_000,
  /** Records cited by one claim; documents in one `grade_answer` call. */
  records: 500,
  /** Locator parts of one record. */
  locatorParts: 64,
  /** One locator part's value (a job or step name, a hunk header). */
  locatorValue: 1_024,
  /** Top-level keys of a proposed call's `arguments`. */
  argumentKeys: 256,
  /** All string characters in one request's arguments together. */
  totalChars: 4_000_000,
  /** All values (strings, numbers, objects, array items…) in one request's arguments. */
  totalElements: 100_000,
  /** Nesting depth of one request's arguments. */
  depth: 32,
} as const;

/** The bounds `exceedsTotals` applies: the tools' totals by default. */
export type TotalLimits = Pick<typeof LIMITS, "totalChars" | "totalElements" | "depth">;

/** The first limit a request's arguments exceed, as a message, or null when within every limit. */
export function exceedsTotals(
  value: unknown,
  limits: Readonly<Record<keyof TotalLimits, number>> = LIMITS,
): string | null {
  let chars = 0;
  let elements = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    elements += 1;
    if (elements > limits.totalElements) return `arguments hold more than ${limits.totalElements} values`;
    if (typeof v === "string") {
      chars += v.length;
      if (chars > limits.totalChars) return `arguments hold more than ${limits.totalChars} characters of text`;
    } else if (v !== null && typeof v === "object") {
      if (depth >= limits.depth) return `arguments nest deeper than ${limits.depth} levels`;
      if (Array.isArray(v)) {
        for (const item of v) stack.push([item, depth + 1]);
      } else {
        for (const [k, item] of Object.entries(v)) {
          chars += k.length;
          stack.push([item, depth + 1]);
        }
      }
    }
  }
  return null;
}
