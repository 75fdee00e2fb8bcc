/**
 * Per-document token sets, cached by document object, so the builtin evaluator tests only the
 * documents that can contain a sentence. Exact: token-bounded containment of `f` in `t` implies
 * every token of `f` is a token of `t`, so a document lacking one of `f`'s tokens cannot contain it.
 * @module
 */
import { normalizedText } from "../core/text-cache.js";

interface Entry {
  readonly text: string;
  readonly tokens: ReadonlySet<string>;
}

// keyed by document object; the stored text guards against a document whose text was replaced
const cache = new WeakMap<object, Entry>();

/** The set of tokens of `normalize(doc.text)`, computed once per document object. */
export function tokenSet(doc: { readonly text: string }): ReadonlySet<string> {
  const hit = cache.get(doc);
  if (hit !== undefined && hit.text === doc.text) return hit.tokens;
  const normalized = normalizedText(doc);
  const tokens = new Set(normalized === "" ? [] : normalized.split(" "));
  cache.set(doc, { text: doc.text, tokens });
  return tokens;
}

/** Up to three tokens of a normalized, non-empty fragment (first, middle, last) to filter documents by. */
export function probeTokens(normalized: string): string[] {
  const ts = normalized.split(" ");
  return [...new Set([ts[0]!, ts[ts.length >> 1]!, ts[ts.length - 1]!])];
}
