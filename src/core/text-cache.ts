/**
 * The cache of normalized evidence text: per record object, and per text string so that a record
 * rebuilt from the same text (the drafter's boundary re-check of a grounding) reuses the work.
 * @module
 */
import { normalize } from "./normalize.js";

interface Cached {
  readonly text: string;
  readonly normalized: string;
}

// keyed by record object; the stored text guards against a record whose text was replaced
const byRecord = new WeakMap<object, Cached>();

// keyed by text; bounded, oldest entry evicted first (results never depend on what is cached)
const byText = new Map<string, string>();
const BY_TEXT_ENTRIES = 8192;
const BY_TEXT_MAX_LENGTH = 1 << 16;

/** `normalize(record.text)`, computed once per record object and, for texts up to 64 KiB, once per text. */
export function normalizedText(record: { readonly text: string }): string {
  const text = record.text;
  const hit = byRecord.get(record);
  if (hit !== undefined && hit.text === text) return hit.normalized;
  const small = text.length <= BY_TEXT_MAX_LENGTH;
  let normalized = small ? byText.get(text) : undefined;
  if (normalized === undefined) {
    normalized = normalize(text);
    if (small) {
      if (byText.size >= BY_TEXT_ENTRIES) byText.delete(byText.keys().next().value as string);
      byText.set(text, normalized);
    }
  }
  byRecord.set(record, { text, normalized });
  return normalized;
}
