/**
 * Text normalization and token-bounded containment (DESIGN.md §3, specs/normalization.md).
 * @module
 */

const MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/gu;
const ASCII_NON_WORD = /[^a-z0-9]+/g;
const FOLDS = /[ßæœøłđ]/g;
const FOLD_TABLE: Readonly<Record<string, string>> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d" };
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Normalize text for comparison: NFKD, drop combining marks, lower-case, fold a few letters,
 * collapse every run of non-letters/non-digits to one space, trim.
 * @example normalize("Crème  Brûlée!") // "creme brulee"
 */
export function normalize(s: string): string {
  if (!NON_ASCII.test(s)) {
    // INVARIANT: for ASCII input NFKD and mark removal are identities, so this is the same pipeline
    return s.toLowerCase().replace(ASCII_NON_WORD, " ").trim();
  }
  const folded = s
    .normalize("NFKD")
    .replace(MARKS, "")
    .toLowerCase()
    .replace(FOLDS, (c) => FOLD_TABLE[c] ?? c);
  return folded.replace(NON_WORD, " ").trim();
}

/**
 * Token-bounded containment of two already-normalized strings: `f` is non-empty and occurs in `t`
 * starting and ending on token boundaries.
 */
export function containsNormalized(f: string, t: string): boolean {
  if (f.length === 0 || f.length > t.length) return false;
  let from = 0;
  for (;;) {
    const at = t.indexOf(f, from);
    if (at < 0) return false;
    const end = at + f.length;
    if ((at === 0 || t.charCodeAt(at - 1) === 32) && (end === t.length || t.charCodeAt(end) === 32)) return true;
    from = at + 1;
  }
}

/**
 * True iff `normalize(fragment)` is non-empty and occurs in `normalize(text)` on token boundaries:
 * `contains("up to $5", "up to $50")` is false.
 * @example contains("Error TS2322", "src/a.ts(3,1): error TS2322: Type") // true
 */
export function contains(fragment: string, text: string): boolean {
  return containsNormalized(normalize(fragment), normalize(text));
}
