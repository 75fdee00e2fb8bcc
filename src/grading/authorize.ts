/**
 * Retrieval authorization before generation (specs/grading.md): an `authorize(principal, documents)` hook
 * decides which documents a principal may retrieve; forbidden documents never enter the bundle that
 * generation and evaluation see. Decisions are cached by principal AND entitlement version, so a
 * decision made for another principal or an older entitlement is never reused.
 * @module
 */
import { canonicalJson } from "../core/canonical.js";
import { TesseraError } from "../platform/errors.js";
import { makeBundle } from "./bundle.js";
import type { EvidenceBundle, EvidenceDocument } from "./types.js";

/** Who asks, and the version of their entitlements (bumped whenever their access changes). */
export interface Principal {
  /** The principal's id (application-side; never sent to generation or evaluation). */
  readonly id: string;
  /** Bumped by the application whenever this principal's access changes. */
  readonly entitlement_version: string;
}

/** Returns the ids of the documents `principal` may retrieve; any other id it returns is ignored. */
export type AuthorizeHook = (
  principal: Principal,
  documents: readonly EvidenceDocument[],
) => Iterable<string> | Promise<Iterable<string>>;

/** An authorization decision over one candidate set: ids only, never document text. */
export interface AccessDecision {
  /** Whose decision this is. */
  readonly principal: string;
  /** The entitlement version it was made under. */
  readonly entitlement_version: string;
  /** Retrieved ids the principal may see, sorted. */
  readonly allowed_ids: readonly string[];
  /** Retrieved ids the principal may not see, sorted. */
  readonly denied_ids: readonly string[];
}

/** The authorized bundle of one request, its digest and the decision that made it. */
export interface AuthorizedEvidence {
  /** The bundle of authorized documents, for generation and evaluation alike. */
  readonly bundle: EvidenceBundle;
  /** Its digest: record it as the `generation_digest`. */
  readonly digest: string;
  /** The decision, for `gradeAnswer(input, { access })` and the audit record. */
  readonly access: AccessDecision;
  /** True when the decision came from the cache rather than the hook. */
  readonly cached: boolean;
}

/** Authorization decisions keyed by principal, entitlement version and the candidate `(id, revision)` set. */
export class AuthorizationCache {
  readonly #entries = new Map<string, AccessDecision>();
  readonly #max: number;

  /** A cache holding at most `maxEntries` decisions (oldest evicted first). */
  constructor(maxEntries = 1000) {
    this.#max = maxEntries;
  }

  /** The cache key; exported shape so tests can show what a decision is keyed by. */
  static key(principal: Principal, documents: readonly EvidenceDocument[]): string {
    const docs = documents.map((d) => canonicalJson([d.id, d.revision])).sort();
    return canonicalJson([principal.id, principal.entitlement_version, docs]);
  }

  /** A cached decision for exactly this principal, entitlement version and candidate set. */
  get(principal: Principal, documents: readonly EvidenceDocument[]): AccessDecision | undefined {
    return this.#entries.get(AuthorizationCache.key(principal, documents));
  }

  /** Store a decision. */
  set(principal: Principal, documents: readonly EvidenceDocument[], decision: AccessDecision): void {
    const key = AuthorizationCache.key(principal, documents);
    this.#entries.delete(key);
    this.#entries.set(key, decision);
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Number of cached decisions. */
  get size(): number {
    return this.#entries.size;
  }
}

function checkPrincipal(principal: Principal): void {
  if (typeof principal?.id !== "string" || principal.id === "")
    throw new TesseraError("invalid_principal", "a principal needs a non-empty `id`", "principal.id");
  if (typeof principal.entitlement_version !== "string" || principal.entitlement_version === "") {
    throw new TesseraError(
      "invalid_principal",
      "a principal needs a non-empty `entitlement_version`",
      "principal.entitlement_version",
    );
  }
}

// a bare string is iterable too: its characters must never become allowed ids
function hookIds(returned: unknown): Set<string> {
  const ok =
    typeof returned === "object" &&
    returned !== null &&
    typeof (returned as Iterable<unknown>)[Symbol.iterator] === "function";
  const ids = ok ? [...(returned as Iterable<unknown>)] : [];
  if (!ok || !ids.every((id) => typeof id === "string")) {
    throw new TesseraError(
      "invalid_authorization",
      "the authorize hook must return document ids (an iterable of strings)",
    );
  }
  return new Set(ids as string[]);
}

/**
 * Authorize the retrieved documents for `principal` and build the bundle generation and evaluation
 * both use. Only documents whose id the hook allows enter the bundle. A hook that throws, or returns
 * anything but an iterable of id strings, authorizes nothing: the error propagates and nothing is cached.
 */
export async function authorizeEvidence(
  request: { readonly request_id: string; readonly query: string; readonly documents: readonly EvidenceDocument[] },
  principal: Principal,
  hook: AuthorizeHook,
  cache?: AuthorizationCache,
): Promise<AuthorizedEvidence> {
  checkPrincipal(principal);
  let access = cache?.get(principal, request.documents);
  const cached = access !== undefined;
  if (access === undefined) {
    const allowed = hookIds(await hook(principal, request.documents));
    const ids = [...new Set(request.documents.map((d) => d.id))].sort();
    access = {
      principal: principal.id,
      entitlement_version: principal.entitlement_version,
      allowed_ids: ids.filter((id) => allowed.has(id)),
      denied_ids: ids.filter((id) => !allowed.has(id)),
    };
    cache?.set(principal, request.documents, access);
  }
  const allowedIds = new Set(access.allowed_ids);
  const { bundle, digest } = makeBundle(
    request.request_id,
    request.query,
    request.documents.filter((d) => allowedIds.has(d.id)),
  );
  return { bundle, digest, access, cached };
}

/** A hook over a fixed allow-list of document ids (the form cases and `tessera grade --acl` use). */
export function allowListHook(allow: Iterable<string>): AuthorizeHook {
  const ids = new Set(allow);
  return (_principal, documents) => documents.filter((d) => ids.has(d.id)).map((d) => d.id);
}
