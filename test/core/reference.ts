// Deliberately naive reference models of the core's text functions, written straight from
// specs/normalization.md with no fast paths, for the differential tests: one code point at a time.

const SUPER = new Set([..."⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻"]);
const SUB = new Set([..."₀₁₂₃₄₅₆₇₈₉₊₋"]);
const COMPARISON = new Set([..."<=>≤≥⩽⩾≦≧"]);
const SIGNS = new Set(["+", "-", "±"]);
const REWRITES: Record<string, string> = {
  "≤": "<=",
  "⩽": "<=",
  "≦": "<=",
  "≥": ">=",
  "⩾": ">=",
  "≧": ">=",
  "\u2010": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2212": "-",
};
const FOLDS: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d" };
const FRACTION = /^[\u00bc-\u00be\u2150-\u215f\u2189]$/u;
const OVERLAY = /^[\u0334-\u0338\u20d2\u20d3\u20e0\u20e5\u20eb]$/u;
const BIDI = /^[\u202a-\u202e\u2066-\u2069]$/u;
const SYMBOL = /^[\p{Sc}%‰‱٪¬☐☑☒✓✔✕✖✗✘✅❌❎⛔🚫👍👎]$/u;

const isScript = (c: string | undefined) => c !== undefined && (SUPER.has(c) || SUB.has(c));
const isFraction = (c: string | undefined) => c !== undefined && FRACTION.test(c);
const isMark = (c: string) => /^\p{M}$/u.test(c);
const isWord = (c: string | undefined) =>
  c !== undefined && !isScript(c) && !isFraction(c) && /^[\p{L}\p{N}]$/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && !isScript(c) && /^\p{N}$/u.test(c);
const isNumber = (c: string | undefined) => c !== undefined && /^\p{N}$/u.test(c);
const isToken = (c: string) => OVERLAY.test(c) || BIDI.test(c) || SYMBOL.test(c);
const isOp = (c: string | undefined) => c === "<" || c === "=" || c === ">";

/** specs/normalization.md, step by step, with no fast path. */
export function referenceNormalize(s: string): string {
  // 1. NFKD one code point at a time, super/subscripts kept (the order of marks differs from a
  // whole-string NFKD, which no later step can see)
  const decomposed = [...[...s].map((c) => (isScript(c) || isFraction(c) ? c : c.normalize("NFKD"))).join("")];
  // 2. a comparison character followed by marks that include U+0338 gets a `!` in front, and loses the marks
  const negated: string[] = [];
  for (let i = 0; i < decomposed.length; i++) {
    const c = decomposed[i]!;
    negated.push(c);
    if (!COMPARISON.has(c)) continue;
    let j = i + 1;
    let struck = false;
    for (; j < decomposed.length && isMark(decomposed[j]!); j++) if (decomposed[j] === "\u0338") struck = true;
    if (struck) {
      negated.splice(negated.length - 1, 0, "!");
      i = j - 1;
    }
  }
  // 3-6: marks but overlays, format characters but bidi controls removed (from the string, so a
  // lone high and low surrogate may pair), lower case, folds, rewrites
  let text = [...negated.join("")]
    .filter((c) => !((isMark(c) && !OVERLAY.test(c)) || (/^\p{Cf}$/u.test(c) && !BIDI.test(c))))
    .join("");
  text = text.toLowerCase();
  text = [...text].map((c) => FOLDS[c] ?? c).join("");
  const cs = [...[...text].map((c) => REWRITES[c] ?? c).join("")];
  // 7. tokens, left to right
  const tokens: string[] = [];
  let i = 0;
  const run = (from: number, inRun: (c: string | undefined) => boolean) => {
    let j = from;
    while (j < cs.length && inRun(cs[j])) j++;
    return j;
  };
  while (i < cs.length) {
    const c = cs[i]!;
    if (SUPER.has(c) || SUB.has(c)) {
      const j = run(i, (x) => x !== undefined && (SUPER.has(c) ? SUPER.has(x) : SUB.has(x)));
      tokens.push(cs.slice(i, j).join(""));
      i = j;
    } else if (isWord(c)) {
      const j = run(i, isWord);
      tokens.push(cs.slice(i, j).join(""));
      i = j;
    } else if (isFraction(c) || isToken(c)) {
      tokens.push(c);
      i++;
    } else if (
      SIGNS.has(c) &&
      isDigit(cs[i + 1]) &&
      !(isNumber(cs[i - 1]) || isScript(cs[i - 1]) || SIGNS.has(cs[i - 1]!))
    ) {
      const j = isFraction(cs[i + 1]) ? i + 2 : run(i + 1, isWord);
      tokens.push(cs.slice(i, j).join(""));
      i = j;
    } else if (c === "!" && !/^[\p{L}\p{N}!]$/u.test(cs[i - 1] ?? "") && isWord(cs[run(i, (x) => x === "!")])) {
      const j = run(
        run(i, (x) => x === "!"),
        isWord,
      );
      tokens.push(cs.slice(i, j).join(""));
      i = j;
    } else if ((c === "!" || c === "-" || isOp(c)) && (isOp(c) || isOp(cs[i + 1]))) {
      const j = run(isOp(c) ? i : i + 1, isOp);
      const op = cs.slice(i, j).join("");
      if (op.includes("<") || op.includes(">") || op.startsWith("!")) tokens.push(op);
      i = j;
    } else i++;
  }
  return tokens.join(" ");
}

/** The normalized text as an array of tokens. */
export function tokensOf(s: string): string[] {
  return referenceNormalize(s)
    .split(" ")
    .filter((t) => t.length > 0);
}

/** True iff the fragment's tokens occur as a contiguous run of the text's tokens. */
export function referenceContains(fragment: string, text: string): boolean {
  const f = tokensOf(fragment);
  const t = tokensOf(text);
  if (f.length === 0) return false;
  for (let i = 0; i + f.length <= t.length; i++) {
    let all = true;
    for (let j = 0; j < f.length; j++) {
      if (t[i + j] !== f[j]) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}
