/**
 * Text normalization and token-bounded containment (specs/normalization.md).
 * @module
 */

/** The version of the normalization contract; anything that stores normalized text keys it by this. */
export const NORMALIZATION_VERSION = 3;

// Character classes, memoized per code point: the low three bits say what the tokenizer does with
// it; DECOMPOSES says whether NFKD changes it; FOLDS whether step 5 replaces it; NUMERIC whether it
// is a digit (\p{N}), which a sign needs after it.
const UNKNOWN = 0;
const WORD = 1; // \p{L} or \p{N}: kept
const SEP = 2; // anything else: part of a separator run
const MARK = 3; // \p{M}: removed
const SPECIAL = 4; // a sign, a comparison character, U+0338 or a super/subscript: decided by context
const KIND = 7;
const DECOMPOSES = 8;
const FOLDS = 16;
const NUMERIC = 32;

// planes 0-2 (all of the BMP, emoji, historic scripts, CJK extensions) in one bounded table; rarer
// code points are classified on each use
const classes = new Uint8Array(0x30000);
const IS_MARK = /^\p{M}$/u;
const IS_WORD = /^[\p{L}\p{N}]$/u;
const IS_NUMBER = /^\p{N}$/u;
const FOLD: Readonly<Record<number, string>> = { 223: "ss", 230: "ae", 339: "oe", 248: "o", 322: "l", 273: "d" };
const CAPITAL_SIGMA = "\u03a3";

// super- and subscript digits and signs: kept through NFKD, each run a token of its own
const SCRIPT = "\u00b2\u00b3\u00b9\u2070\u2074-\u207b\u2080-\u208b";
// vulgar fractions: kept through NFKD (which would make `¼` read `1 4`, like `1.4`), each a token
const FRACTIONS = "\u00bc-\u00be\u2150-\u215f\u2189";
// super/subscripts and fractions: the numbers NFKD would change and step 1 keeps
const KEPT = SCRIPT + FRACTIONS;
const KEPT_RUN = new RegExp(`[${KEPT}]+`, "gu");
// combining overlays (strokes and slashes through a character, the enclosing prohibition circle) and
// bidi embedding, override and isolate controls: kept, each a token of its own
const OVERLAYS = "\u0334-\u0338\u20d2\u20d3\u20e0\u20e5\u20eb";
const BIDI = "\u202a-\u202e\u2066-\u2069";
// currency, percent and negation symbols (besides `!`), and check marks: each a token of its own
const SYMBOLS = `\\p{Sc}%\u2030\u2031\u066a\u00ac\u2610-\u2612\u2713-\u2718\u2705\u274c\u274e\u26d4\u{1f6ab}\u{1f44d}\u{1f44e}${OVERLAYS}${BIDI}`;
// the characters whose meaning depends on their neighbours or that the single pass leaves to the
// literal pipeline, beyond ASCII `! + - < = >` (and `$ %`, tokens of their own)
const NON_ASCII_SPECIAL = new RegExp(
  `^(?:[${KEPT}\u00b1\u2010\u2012\u2013\u2212\u2264\u2265\u2266\u2267\u2a7d\u2a7e${SYMBOLS}]|\\p{Cf})$`,
  "u",
);

function classify(cp: number): number {
  const ch = String.fromCodePoint(cp);
  const kind = NON_ASCII_SPECIAL.test(ch) ? SPECIAL : IS_MARK.test(ch) ? MARK : IS_WORD.test(ch) ? WORD : SEP;
  const folds = FOLD[cp] === undefined ? 0 : FOLDS;
  const numeric = IS_NUMBER.test(ch) ? NUMERIC : 0;
  return (ch.normalize("NFKD") === ch ? kind : kind | DECOMPOSES) | folds | numeric;
}

function classOf(cp: number): number {
  if (cp >= 0x30000) return classify(cp);
  const k = classes[cp]!;
  if (k !== UNKNOWN) return k;
  const found = classify(cp);
  classes[cp] = found;
  return found;
}

// ASCII entries hold the kind only (digits are told apart by their code where it matters)
for (let c = 0; c < 0x80; c++) {
  classes[c] = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ? WORD : SEP;
}
for (const c of "!+-<=>") classes[c.charCodeAt(0)] = SPECIAL;

/** The code point at `i` (a lone surrogate counts as itself). */
function codePointAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

const HAS_KEPT = new RegExp(`[${KEPT}]`, "u");

/** NFKD, except that super- and subscript digits and signs and vulgar fractions stay as they are (step 1). */
function decompose(s: string): string {
  if (!HAS_KEPT.test(s)) return s.normalize("NFKD");
  let out = "";
  let last = 0;
  for (const m of s.matchAll(KEPT_RUN)) {
    out += s.slice(last, m.index).normalize("NFKD") + m[0];
    last = m.index + m[0].length;
  }
  return out + s.slice(last).normalize("NFKD");
}

const NEGATED = /([<=>\u2264\u2265\u2266\u2267\u2a7d\u2a7e])\p{M}*\u0338\p{M}*/gu;
// marks other than overlays, and format characters other than bidi controls: removed, so that
// `5\u200b00` reads `500`, as it shows
const INVISIBLE = new RegExp(`(?:(?![${OVERLAYS}])\\p{M})+|(?:(?![${BIDI}])\\p{Cf})+`, "gu");
const FOLDABLE = /[ßæœøłđ]/g;
const AT_MOST = /[\u2264\u2266\u2a7d]/g;
const AT_LEAST = /[\u2265\u2267\u2a7e]/g;
const DASHES = /[\u2010\u2012\u2013\u2212]/g;
const WORD_CHAR = `(?:(?![${KEPT}])[\\p{L}\\p{N}])`;
// a sign in front of a number, unless a digit, a super/subscript, a fraction or a sign is before it
const SIGN = `(?<![\\p{N}${SCRIPT}+\\-\u00b1])[+\\-\u00b1](?=(?![${SCRIPT}])\\p{N})`;
const TOKEN = new RegExp(
  `(?<script>[\u00b2\u00b3\u00b9\u2070\u2074-\u207b]+|[\u2080-\u208b]+)` +
    `|(?<word>(?:${SIGN}|(?<![\\p{L}\\p{N}!])!+)?${WORD_CHAR}+)` +
    `|(?<fraction>(?:${SIGN})?[${FRACTIONS}])` +
    `|(?<symbol>[${SYMBOLS}])` +
    "|(?<op>[!\\-]?[<=>]+)",
  "gu",
);

// the pipeline exactly as specified, for text the single pass does not handle: a sigma (whose lower
// case depends on its neighbours), a lone surrogate, a non-ASCII sign or comparison, a super/subscript
function literalPipeline(decomposed: string): string {
  const text = decomposed
    .replace(NEGATED, "!$1")
    .replace(INVISIBLE, "")
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLD[c.charCodeAt(0)] ?? c)
    .replace(AT_MOST, "<=")
    .replace(AT_LEAST, ">=")
    .replace(DASHES, "-");
  const tokens: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const op = m.groups!.op;
    if (op === undefined || op.includes("<") || op.includes(">") || op.startsWith("!")) tokens.push(m[0]);
  }
  return tokens.join(" ");
}

/**
 * Normalize text for comparison (specs/normalization.md): NFKD with super- and subscripts kept,
 * negated comparisons marked, combining marks dropped, lower-cased, a few letters folded; then the
 * tokens — words (with a sign in front of a number), comparison operators, super/subscript runs —
 * joined by single spaces.
 * @example normalize("Crème  Brûlée!") // "creme brulee"
 * @example normalize("dropped to -40, stayed < 30") // "dropped to -40 stayed < 30"
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
  const t = decompose(s);
  if (t.includes(CAPITAL_SIGMA)) return literalPipeline(t); // a sigma's lower case depends on its neighbours
  return collapse(t.toLowerCase(), false) ?? literalPipeline(t);
}

/** Whether the character before `i` (marks skipped) keeps a `+` or `-` at `i` from being a sign. */
function signBlocked(lower: string, i: number): boolean {
  for (let j = i - 1; j >= 0; j--) {
    const c = lower.charCodeAt(j);
    if (c < 0x80) return classes[c] === WORD || c === 43 || c === 45;
    let cp = c;
    if (c >= 0xdc00 && c <= 0xdfff && j > 0) {
      const h = lower.charCodeAt(j - 1);
      if (h >= 0xd800 && h <= 0xdbff) {
        cp = (h - 0xd800) * 0x400 + (c - 0xdc00) + 0x10000;
        j--;
      }
    }
    const k = classOf(cp) & KIND;
    if (k !== MARK) return k === WORD; // a special or a lone surrogate ended the single pass before i
  }
  return false;
}

const OTHER = 0;
const DIGIT = 1;
const COMPARE = 2;
const UNDECIDED = -1;

// what the character at `j` is to the sign or `!` before it; UNDECIDED when a mark, a special or
// a character NFKD changes is there, which only the literal pipeline decides
function peek(lower: string, j: number, bail: boolean): number {
  if (j >= lower.length) return OTHER;
  const c = lower.charCodeAt(j);
  if (c < 0x80) return c >= 48 && c <= 57 ? DIGIT : c >= 60 && c <= 62 ? COMPARE : OTHER;
  const cp = codePointAt(lower, j);
  if (cp >= 0xd800 && cp <= 0xdfff) return UNDECIDED;
  const k = classOf(cp);
  if (bail && (k & DECOMPOSES) !== 0) return UNDECIDED;
  const kind = k & KIND;
  if (kind === MARK || kind === SPECIAL) return UNDECIDED;
  return kind === WORD && (k & NUMERIC) !== 0 ? DIGIT : OTHER;
}

/**
 * Steps 3 to 8 over lower-cased text in one pass. With `bail`, returns null on meeting a character
 * that NFKD would change, or a sigma (whose lower case depended on context). Returns null in any
 * case on a lone surrogate (dropping the marks between a lone high and a lone low surrogate pairs
 * them into one character), on a non-ASCII special character, and where a mark or such a
 * character next to `! + - < = >` would decide what they are: the literal pipeline does those.
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
    if (c < 0x80) {
      if (c === 36 || c === 37) {
        // `$` and `%`: a token of their own, also right next to a word
        if (start >= 0) {
          out += lower.slice(start, i);
          start = -1;
        }
        out += out.length > 0 ? ` ${lower[i]}` : lower[i];
        sep = true;
        same = false;
        continue;
      }
      k = classes[c]!;
    } else {
      cp = codePointAt(lower, i);
      if (cp >= 0xd800 && cp <= 0xdfff) return null;
      k = classOf(cp);
      if (bail && ((k & DECOMPOSES) !== 0 || cp === 0x3c2 || cp === 0x3c3)) return null;
      folds = (k & FOLDS) !== 0;
      k &= KIND;
      if (k === SPECIAL) return null;
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
        if (cp > 0xffff) i++;
        // the rest of an ASCII run, and single spaces between ASCII words, in a tight loop
        for (;;) {
          const d = i + 1 < n ? lower.charCodeAt(i + 1) : 0;
          if (d < 0x80 && classes[d] === WORD) i++;
          else if (d === 32 && i + 2 < n && lower.charCodeAt(i + 2) < 0x80 && classes[lower.charCodeAt(i + 2)] === WORD)
            i += 2;
          else break;
        }
        continue;
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
      if (k === SPECIAL) {
        // ASCII `! + - < = >`: a sign starts a word, a `<` `=` `>` run (after `!` or `-`) may be an
        // operator, anything else separates
        let next = OTHER;
        if (c !== 60 && c !== 61 && c !== 62) {
          const d = i + 1 < n ? lower.charCodeAt(i + 1) : 0;
          next =
            d < 0x80 ? (d >= 48 && d <= 57 ? DIGIT : d >= 60 && d <= 62 ? COMPARE : OTHER) : peek(lower, i + 1, bail);
          if (next === UNDECIDED) return null;
        }
        if (c === 33 || c === 45 ? next === COMPARE : c !== 43) {
          let j = c === 33 || c === 45 ? i + 1 : i;
          let token = c === 33;
          for (; j < n; j++) {
            const d = lower.charCodeAt(j);
            if (d === 60 || d === 62) token = true;
            else if (d !== 61) break;
          }
          let after = j < n ? lower.charCodeAt(j) : 32;
          if (after >= 0x80) {
            if (peek(lower, j, bail) === UNDECIDED) return null; // a mark or a special after the run
            after = 0x41; // not known to separate
          }
          if (start >= 0) {
            out += lower.slice(start, i);
            start = -1;
          }
          if (token) {
            if (!sep && out.length > 0) same = false;
            if (classes[after] === SEP) {
              if (out.length > 0) out += " ";
              start = i; // a separator follows: the run may go on verbatim
              sep = false;
            } else {
              // a token of its own, also right before a word or a sign
              out += out.length > 0 ? ` ${lower.slice(i, j)}` : lower.slice(i, j);
              sep = true;
              same = false;
            }
          } else {
            same = false; // `=`, `==`, `-=`: a separator
            sep = true;
          }
          i = j - 1;
          continue;
        }
        if (c === 33 && i + 1 < n) {
          const d = lower.charCodeAt(i + 1);
          if (d >= 0x80 || classes[d] === WORD || d === 33) return null; // `!` before a word: the literal pipeline
        }
        const p = i > 0 ? lower.charCodeAt(i - 1) : 32;
        const blocked = p < 0x80 ? classes[p] === WORD || p === 43 || p === 45 : signBlocked(lower, i);
        if (c !== 33 && next === DIGIT && blocked && !(p >= 48 && p <= 57)) {
          // a sign after a letter (`utc-5`, `1e+5`): ends the letter's word and starts its own;
          // after a non-ASCII character or another sign, the literal pipeline decides
          if (p >= 0x80 || p === 43 || p === 45 || start < 0) return null;
          out += `${lower.slice(start, i)} `;
          same = false;
          start = i;
          continue;
        }
        if (c !== 33 && next === DIGIT && !blocked) {
          // a sign: the start of a word (never inside one, or it would be blocked)
          if (sep) {
            if (out.length > 0) out += " ";
            sep = false;
          }
          start = i;
          continue;
        }
      }
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
