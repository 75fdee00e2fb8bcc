// Shared fast-check arbitraries for the core's property tests.
import fc from "fast-check";

/** Any single UTF-16 code unit: lone surrogates, NUL and control characters included. */
export const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Strings of arbitrary UTF-16 code units (lone surrogates, NUL, controls). */
export const rawString = fc.string({ unit: codeUnit, maxLength: 64 });

/** Strings of arbitrary code points across the whole Unicode range (the v4 successor of fullUnicodeString). */
export const unicodeString = fc.string({ unit: "binary", maxLength: 64 });

/** Characters that make normalization interesting: case, accents, folds, compatibility forms, separators. */
const tricky = fc.constantFrom(
  "a",
  "B",
  "z",
  "0",
  "9",
  "É",
  "é",
  "e\u0301",
  "ß",
  "ẞ",
  "Æ",
  "œ",
  "Ø",
  "ł",
  "Đ",
  "ﬁ",
  "①",
  "Ⅻ",
  "İ",
  "ı",
  "Σ",
  "ς",
  "Α",
  "\u0903",
  "\u0345",
  "ϹΌ",
  "ǅ",
  "ﾊ",
  "가",
  "中",
  "٣",
  "\u00a0",
  " ",
  "\t",
  "\n",
  "$",
  "-",
  "_",
  ".",
  ":",
  "'",
  '"',
  "\u0000",
  "\ud800",
  "\udc00",
  "😀",
  "+",
  "<",
  ">",
  "=",
  "!",
  "−",
  "–",
  "±",
  "≤",
  "≠",
  "\u0338",
  "²",
  "⁶",
  "⁻",
  "₂",
);

/** Strings built mostly from `tricky` characters, mixed with arbitrary code units. */
export const trickyString = fc.string({
  unit: fc.oneof({ weight: 4, arbitrary: tricky }, { weight: 1, arbitrary: codeUnit }),
  maxLength: 40,
});

/** Strings dense in what signs, operators, super/subscripts and symbol tokens depend on: their characters and neighbours. */
export const operatorString = fc.string({
  unit: fc.constantFrom(
    "a",
    "Z",
    "1",
    "40",
    " ",
    "-",
    "+",
    "±",
    "−",
    "–",
    "\u2010",
    "\u2011",
    "<",
    "=",
    ">",
    "!",
    "≤",
    "≥",
    "≠",
    "≮",
    "≰",
    "⩽",
    "＜",
    "－",
    "\u0338",
    "\u0301",
    "²",
    "⁶",
    "⁻",
    "⁺",
    "₂",
    "₋",
    "①",
    "١",
    ".",
    "_",
    "ß",
    "Σ",
    "\ud800",
    "$",
    "%",
    "€",
    "¼",
    "½",
    "¬",
    "✅",
    "❌",
    "≉",
    "\u0336",
    "\u200b",
    "\u00ad",
    "\u202e",
    "\u2066",
  ),
  maxLength: 24,
});

/** Any of the generators above. */
export const anyString = fc.oneof(rawString, unicodeString, trickyString, operatorString, fc.string());

/** A word-ish token: letters and digits only, lower- and upper-case, some non-ASCII. */
export const token = fc.string({
  unit: fc.constantFrom("a", "b", "c", "x", "1", "2", "É", "ß", "中", "Z"),
  minLength: 1,
  maxLength: 4,
});

/** Text made of tokens joined by separator runs, so containment questions have interesting answers. */
export const tokenText = fc
  .array(fc.tuple(token, fc.constantFrom(" ", "  ", "-", ", ", "\t", "/", "$", ": ")), { maxLength: 12 })
  .map((parts) => parts.map(([t, s]) => t + s).join(""));
