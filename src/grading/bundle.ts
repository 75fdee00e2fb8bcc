/**
 * The evidence bundle and its digest over `(id, revision, text)` in canonical order.
 * @module
 */
import { digestOf, sha256Hex } from "../platform/digest.js";
import type { EvidenceBundle, EvidenceDocument } from "./types.js";

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Documents sorted by id, then revision, then text (UTF-16 code units): the order digests use. */
export function canonicalOrder(documents: readonly EvidenceDocument[]): EvidenceDocument[] {
  return [...documents].sort(
    (a, b) => byCodeUnits(a.id, b.id) || byCodeUnits(a.revision, b.revision) || byCodeUnits(a.text, b.text),
  );
}

/**
 * `sha256:<hex>` over the canonical JSON of `[{id, revision, text}]` in canonical order. Titles are
 * presentation and not part of the digest; order of retrieval does not change it.
 * @example evidenceDigest([{ id: "a", revision: "1", text: "x" }]).startsWith("sha256:") // true
 */
export function evidenceDigest(documents: readonly EvidenceDocument[]): string {
  return digestOf(canonicalOrder(documents).map((d) => ({ id: d.id, revision: d.revision, text: d.text })));
}

/** Build a bundle (documents in canonical order) and its digest. */
export function makeBundle(
  request_id: string,
  query: string,
  documents: readonly EvidenceDocument[],
): { bundle: EvidenceBundle; digest: string } {
  const ordered = canonicalOrder(documents);
  return { bundle: { request_id, query, documents: ordered }, digest: evidenceDigest(ordered) };
}

/** The minimal generation payload of specs/grading.md: query and documents, no identity or authorization data. */
export function generationPayload(bundle: EvidenceBundle): { query: string; documents: EvidenceDocument[] } {
  return {
    query: bundle.query,
    documents: bundle.documents.map((d) =>
      d.title === undefined
        ? { id: d.id, revision: d.revision, text: d.text }
        : { id: d.id, title: d.title, revision: d.revision, text: d.text },
    ),
  };
}

/** `sha256:<hex>` of the answer text exactly as given (UTF-8). */
export function answerDigest(answer: string): string {
  return `sha256:${sha256Hex(answer)}`;
}
