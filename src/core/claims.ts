/**
 * The claim grammar and `isSupported` (specs/claim-grammar.md).
 * @module
 */
import type { Claim, EvidenceRecord } from "./evidence.js";
import { containsNormalized, normalize } from "./normalize.js";
import { normalizedText } from "./text-cache.js";

/** Stable reasons a claim is or is not supported. */
export type SupportReason =
  | "contained_in_record"
  | "fragment_in_every_record"
  | "no_support"
  | "empty_claim"
  | "not_contained"
  | "unknown_label"
  | "too_few_citations"
  | "citation_mismatch"
  | "fragment_missing";

/** The verdict on one claim. `record` is the id of the record that supports a snippet. */
export interface SupportResult {
  /** True only when the shape that recognized the claim found it supported. */
  readonly supported: boolean;
  /** The shape that decided (`shared-fragment`, `snippet`, a registered one), or `none`. */
  readonly shape: string;
  /** Why, as a stable code. */
  readonly reason: SupportReason;
  /** The record that contains a snippet, or the record that lacks a shared fragment. */
  readonly record?: string;
}

/**
 * One claim shape. `recognize` returns null when the text is not of this shape; the first shape
 * that recognizes a claim decides it — a recognized shape that fails is unsupported, never retried
 * as another shape.
 */
export interface ClaimShape<P = unknown> {
  /** The shape's name, reported as `shape` in results. */
  readonly name: string;
  /** Parse the claim text, or return null when the text is not of this shape. */
  recognize(text: string): P | null;
  /** Decide a claim this shape recognized, against the claim's own cited records. */
  check(parsed: P, claim: Claim): SupportResult;
}

/** An ordered, immutable list of claim shapes. */
export class ClaimGrammar {
  /** The shapes, in the order they are tried. */
  readonly shapes: readonly ClaimShape<unknown>[];

  /** A grammar trying `shapes` in order. */
  // biome-ignore lint/suspicious/noExplicitAny: a shape's parse type is its own; the grammar only passes it back
  constructor(shapes: readonly ClaimShape<any>[]) {
    this.shapes = [...shapes];
  }

  /** A new grammar that tries `shape` before the existing shapes (so before the `snippet` fallback). */
  // biome-ignore lint/suspicious/noExplicitAny: as in the constructor
  with(shape: ClaimShape<any>): ClaimGrammar {
    return new ClaimGrammar([shape, ...this.shapes]);
  }

  /**
   * Decide one claim. Never throws for any JSON-like value: a claim that is not an object, or whose
   * support is not a non-empty list of records with string `id` and `text`, is `no_support`; a
   * text that is not a string is `empty_claim`.
   */
  isSupported(claim: Claim): SupportResult {
    const c: unknown = claim;
    if (typeof c !== "object" || c === null) return { supported: false, shape: "none", reason: "no_support" };
    const { support, text } = c as { support?: unknown; text?: unknown };
    if (!Array.isArray(support) || support.length === 0)
      return { supported: false, shape: "none", reason: "no_support" };
    for (let i = 0; i < support.length; i++) {
      if (!isRecord(support[i])) return { supported: false, shape: "none", reason: "no_support" };
    }
    if (typeof text !== "string") return { supported: false, shape: "none", reason: "empty_claim" };
    for (const shape of this.shapes) {
      const parsed = shape.recognize(claim.text);
      if (parsed !== null) return shape.check(parsed, claim);
    }
    return { supported: false, shape: "none", reason: "not_contained" };
  }
}

/**
 * The labels a shared-fragment claim may carry: the ones the project's own claim producers write
 * (src/answers). A label is a fixed phrase naming the claim's role, never free text: a claim of the
 * shared-fragment form with any other label is unsupported (`unknown_label`), so no unverified words
 * ride along with a verified fragment.
 */
export const SHARED_FRAGMENT_LABELS = [
  "Recurring failure",
  "Documented incident",
  "Resolving change",
  "Motivating ticket",
] as const;

/** One of `SHARED_FRAGMENT_LABELS`. */
export type SharedFragmentLabel = (typeof SHARED_FRAGMENT_LABELS)[number];

const LABELS: ReadonlySet<string> = new Set(SHARED_FRAGMENT_LABELS);

interface SharedFragment {
  readonly label: string;
  readonly fragment: string;
  readonly ids: readonly string[];
}

const SHARED_FRAGMENT = /^([^:"\n]+): "([\s\S]*)" appears in ('[^']*'(?: and '[^']*')+)\.$/;

/**
 * `<Label>: "<FRAG>" appears in '<A>' and '<B>'[ and '<C>' ...].` — the label is one of
 * `SHARED_FRAGMENT_LABELS` and the fragment is in every cited record.
 */
export const sharedFragmentShape: ClaimShape<SharedFragment> = {
  name: "shared-fragment",
  recognize(text) {
    // both literal parts of the form, checked before the regular expression: most claims are snippets
    if (!text.endsWith("'.") || !text.includes("\" appears in '")) return null;
    const m = SHARED_FRAGMENT.exec(text);
    if (m === null) return null;
    const ids = [...m[3]!.matchAll(/'([^']*)'/g)].map((x) => x[1]!);
    return { label: m[1]!, fragment: m[2]!, ids };
  },
  check(parsed, claim) {
    const shape = "shared-fragment";
    if (!LABELS.has(parsed.label)) return { supported: false, shape, reason: "unknown_label" };
    if (parsed.ids.length < 2 || claim.support.length < 2) {
      return { supported: false, shape, reason: "too_few_citations" };
    }
    const named = new Set(parsed.ids);
    const cited = new Set(claim.support.map((r) => r.id));
    // a record cited or named twice is still one record: "appears in 'a' and 'a'" shares nothing
    if (cited.size < 2) return { supported: false, shape, reason: "too_few_citations" };
    if (named.size !== parsed.ids.length || cited.size !== claim.support.length) {
      return { supported: false, shape, reason: "citation_mismatch" };
    }
    if (named.size !== cited.size || [...named].some((id) => !cited.has(id))) {
      return { supported: false, shape, reason: "citation_mismatch" };
    }
    const f = normalize(parsed.fragment);
    if (f.length === 0) return { supported: false, shape, reason: "empty_claim" };
    for (const record of claim.support) {
      if (!containsNormalized(f, normalizedText(record))) {
        return { supported: false, shape, reason: "fragment_missing", record: record.id };
      }
    }
    return { supported: true, shape, reason: "fragment_in_every_record" };
  },
};

/** The default shape: the whole claim text is contained in at least one single cited record. */
export const snippetShape: ClaimShape<string> = {
  name: "snippet",
  recognize: (text) => text,
  check(text, claim) {
    const shape = "snippet";
    const f = normalize(text);
    if (f.length === 0) return { supported: false, shape, reason: "empty_claim" };
    const record = firstContaining(f, claim.support);
    if (record === undefined) return { supported: false, shape, reason: "not_contained" };
    return { supported: true, shape, reason: "contained_in_record", record: record.id };
  },
};

/** The first record whose normalized text contains the normalized fragment `f`. */
export function firstContaining(f: string, records: readonly EvidenceRecord[]): EvidenceRecord | undefined {
  for (const r of records) if (isRecord(r) && containsNormalized(f, normalizedText(r))) return r;
  return undefined;
}

// a cited record the verifier can read; anything else supports nothing
function isRecord(r: unknown): r is EvidenceRecord {
  return (
    typeof r === "object" &&
    r !== null &&
    typeof (r as { id?: unknown }).id === "string" &&
    typeof (r as { text?: unknown }).text === "string"
  );
}

/** The grammar of specs/claim-grammar.md: `shared-fragment`, then `snippet`. */
export const defaultClaimGrammar = new ClaimGrammar([sharedFragmentShape, snippetShape]);

/**
 * Whether a claim is supported by its own cited evidence, under the default grammar.
 * @example isSupported({ text: "error TS2322", support: [record] }).supported
 */
export function isSupported(claim: Claim, grammar: ClaimGrammar = defaultClaimGrammar): SupportResult {
  return grammar.isSupported(claim);
}
