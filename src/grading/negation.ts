/**
 * Containment that a negation next to the match voids, for the `builtin` evaluator
 * (specs/grading.md, "Support"): a sentence split off right before or after a `not` in the
 * evidence (`Desks are.` out of `Desks are not reimbursed.`) is not supported by that occurrence.
 * @module
 */

/** Normalized tokens that negate what follows them: right before a match, they void it. */
export const BEFORE_MATCH: ReadonlySet<string> = new Set([
  "not",
  "no",
  "never",
  "cannot",
  "nor",
  "neither",
  "t", // isn't, don't, won't
  "¬",
  "☒",
  "✕",
  "✖",
  "✗",
  "✘",
  "❌",
  "❎",
  "⛔",
  "🚫",
  "👎",
  "\u0334",
  "\u0335",
  "\u0336",
  "\u0337",
  "\u0338",
  "\u20d2",
  "\u20d3",
  "\u20e0",
  "\u20e5",
  "\u20eb",
]);
/** Right after a match: the same but the words that commonly start the next sentence (`No receipt is needed.`). */
export const AFTER_MATCH: ReadonlySet<string> = new Set([...BEFORE_MATCH].filter((t) => t !== "no" && t !== "neither"));

/**
 * Whether the normalized sentence `f` occurs in the normalized text `t` on token boundaries at
 * least once with no negating token right before it and none right after it.
 */
export function containedUnnegated(f: string, t: string): boolean {
  if (f.length === 0 || f.length > t.length) return false;
  for (let from = 0; ; ) {
    const at = t.indexOf(f, from);
    if (at < 0) return false;
    from = at + 1;
    const end = at + f.length;
    if ((at !== 0 && t.charCodeAt(at - 1) !== 32) || (end !== t.length && t.charCodeAt(end) !== 32)) continue;
    const before = at === 0 ? "" : t.slice(t.lastIndexOf(" ", at - 2) + 1, at - 1);
    const stop = end === t.length ? -1 : t.indexOf(" ", end + 1);
    const after = end === t.length ? "" : t.slice(end + 1, stop < 0 ? t.length : stop);
    if (!BEFORE_MATCH.has(before) && !AFTER_MATCH.has(after)) return true;
  }
}
