/**
 * The per-record cache of normalized evidence text.
 * @module
 */
import { normalize } from "./normalize.js";

interface Cached {
  readonly text: string;
  readonly normalized: string;
}

// keyed by record object; the stored text guards against a record whose text was replaced
const cache = new WeakMap<object, Cached>();

/** `normalize(record.text)`, computed once per record object. */
export function normalizedText(record: { readonly text: string }): string {
  const hit = cache.get(record);
  if (hit !== undefined && hit.text === record.text) return hit.normalized;
  const normalized = normalize(record.text);
  cache.set(record, { text: record.text, normalized });
  return normalized;
}
