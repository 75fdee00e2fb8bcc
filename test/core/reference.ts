// Deliberately naive reference models of the core's text functions, written straight from
// DESIGN.md §3 with no fast paths, for the differential tests.

/** DESIGN.md §3 normalization, step by step, with no fast path. */
export function referenceNormalize(s: string): string {
  const folds: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d" };
  let out = s.normalize("NFKD");
  out = out.replace(/\p{M}/gu, "");
  out = out.toLowerCase();
  out = [...out].map((c) => folds[c] ?? c).join("");
  out = out.replace(/[^\p{L}\p{N}]+/gu, " ");
  return out.trim();
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
