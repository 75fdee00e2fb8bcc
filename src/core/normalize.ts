/**
 * Text normalization and token-bounded containment (DESIGN.md §3, specs/normalization.md).
 * @module
 */

// Character classes, memoized per code point: the low two bits say what step 2 and step 5 of the
// pipeline do with it; DECOMPOSES says whether NFKD changes it; FOLDS whether step 4 replaces it.
const UNKNOWN = 0;
const WORD = 1; // \p{L} or \p{N}: kept
const SEP = 2; // anything else: part of a separator run
const MARK = 3; // \p{M}: removed
const DECOMPOSES = 4;
const FOLDS = 8;

// planes 0-2 (all of the BMP, emoji, historic scripts, CJK extensions) in one bounded table; rarer
// code points are classified on each use
const classes = new Uint8Array(0x30000);
const IS_MARK = /^\p{M}$/u;
const IS_WORD = /^[\p{L}\p{N}]$/u;
const FOLD: Readonly<Record<number, string>> = { 223: "ss", 230: "ae", 339: "oe", 248: "o", 322: "l", 273: "d" };
const CAPITAL_SIGMA = "\u03a3";

function classify(cp: number): number {
  const ch = String.fromCodePoint(cp);
  const kind = IS_MARK.test(ch) ? MARK : IS_WORD.test(ch) ? WORD : SEP;
  const folds = FOLD[cp] === undefined ? 0 : FOLDS;
  return (ch.normalize("NFKD") === ch ? kind : kind | DECOMPOSES) | folds;
}

function classOf(cp: number): number {
  if (cp >= 0x30000) return classify(cp);
  const k = classes[cp]!;
  if (k !== UNKNOWN) return k;
  const found = classify(cp);
  classes[cp] = found;
  return found;
}

for (let c = 0; c < 0x80; c++) {
  classes[c] = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ? WORD : SEP;
}

/** The code point at `i` (a lone surrogate counts as itself). */
function codePointAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

const MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/gu;
const FOLDABLE = /[ßæœøłđ]/g;

// the pipeline exactly as specified, for text where lower-casing depends on context (final sigma)
function literalPipeline(nfkd: string): string {
  return nfkd
    .replace(MARKS, "")
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLD[c.charCodeAt(0)] ?? c)
    .replace(NON_WORD, " ")
    .trim();
}

/**
 * Normalize text for comparison: NFKD, drop combining marks, lower-case, fold a few letters,
 * collapse every run of non-letters/non-digits to one space, trim.
 * @example normalize("Crème  Brûlée!") // "creme brulee"
 */
export function normalize(s: string): string {
  // INVARIANT: apart from final sigma, toLowerCase maps each NFKD-stable code point to exactly one
  // code point, never creates or removes a mark and never yields a decomposable character, so
  // lower-casing before dropping marks is the same as after; and only marks have a non-zero
  // combining class, so NFKD's reordering is moot once marks are dropped. Text whose lower case has
  // no decomposable character and no sigma therefore needs no NFKD pass at all.
  // test/core/normalize.unicode.test.ts checks these facts and this function for every code point.
  const quick = collapse(s.toLowerCase(), true);
  if (quick !== null) return quick;
  const t = s.normalize("NFKD");
  if (t.includes(CAPITAL_SIGMA)) return literalPipeline(t); // a sigma's lower case depends on its neighbours
  return collapse(t.toLowerCase(), false) ?? literalPipeline(t);
}

/**
 * Steps 2, 4, 5 and 6 over lower-cased text in one pass. With `bail`, returns null on meeting a
 * character that NFKD would change, or a sigma (whose lower case depended on context). Returns null
 * on a lone surrogate in any case: dropping the marks between a lone high and a lone low surrogate
 * pairs them into one character, which only the literal pipeline sees.
 */
function collapse(lower: string, bail: boolean): string | null {
  let out = "";
  let start = -1; // start of the current kept run in `lower`
  let sep = false; // a separator was seen since the last kept text
  let same = true; // `lower` is already normalized
  const n = lower.length;
  for (let i = 0; i < n; i++) {
    const c = lower.charCodeAt(i);
    if (c === 32 && start >= 0 && i + 1 < n) {
      const d = lower.charCodeAt(i + 1);
      if (d < 0x80 && classes[d] === WORD) continue; // one space between ASCII tokens: the run goes on, fewer slices
    }
    let k: number;
    let cp = c;
    let folds = false;
    if (c < 0x80) k = classes[c]!;
    else {
      cp = codePointAt(lower, i);
      if (cp >= 0xd800 && cp <= 0xdfff) return null;
      k = classOf(cp);
      if (bail && ((k & DECOMPOSES) !== 0 || cp === 0x3c2 || cp === 0x3c3)) return null;
      folds = (k & FOLDS) !== 0;
      k &= 3;
    }
    if (k === WORD) {
      if (!folds) {
        if (start < 0) {
          if (sep) {
            if (out.length > 0) out += " ";
            sep = false;
          }
          start = i;
        }
      } else {
        same = false;
        if (start >= 0) {
          out += lower.slice(start, i);
          start = -1;
        }
        if (sep) {
          if (out.length > 0) out += " ";
          sep = false;
        }
        out += FOLD[cp]!;
      }
    } else {
      if (start >= 0) {
        out += lower.slice(start, i);
        start = -1;
      }
      if (k === MARK) same = false;
      else {
        if (c !== 32 || sep || i === 0) same = false;
        sep = true;
      }
    }
    if (cp > 0xffff) i++;
  }
  if (start >= 0) out += lower.slice(start);
  if (sep) same = false;
  return same ? lower : out;
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
