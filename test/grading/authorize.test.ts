import { describe, expect, it } from "vitest";
import {
  AuthorizationCache,
  type AuthorizeHook,
  authorizeEvidence,
  type Principal,
} from "../../src/grading/authorize.js";
import { generationPayload } from "../../src/grading/bundle.js";
import { gradeAnswerAudited } from "../../src/grading/grade.js";
import type { EvidenceDocument } from "../../src/grading/types.js";

const HR: EvidenceDocument = {
  id: "hr-home-office",
  revision: "2026-04",
  text: "A chair may be reimbursed up to USD 500 with manager approval.",
};
const EXEC: EvidenceDocument = {
  id: "exec-furniture",
  revision: "2026-03",
  text: "Executives may claim up to USD 2000 for office furniture.",
};
const request = { request_id: "req-1", query: "How much for furniture?", documents: [HR, EXEC] };

// an entitlement store the hook reads, counting its calls
function store(initial: Record<string, string[]>) {
  const grants = new Map(Object.entries(initial));
  const calls: string[] = [];
  const hook: AuthorizeHook = (principal, documents) => {
    calls.push(`${principal.id}@${principal.entitlement_version}`);
    const allowed = new Set(grants.get(principal.id) ?? []);
    return documents.filter((d) => allowed.has(d.id)).map((d) => d.id);
  };
  return { grants, calls, hook };
}

const alice: Principal = { id: "alice", entitlement_version: "1" };

describe("retrieval authorization", () => {
  it("keeps a forbidden document out of generation and out of evaluation", async () => {
    const { hook } = store({ alice: ["hr-home-office"] });
    const authorized = await authorizeEvidence(request, alice, hook);
    expect(authorized.access).toEqual({
      principal: "alice",
      entitlement_version: "1",
      allowed_ids: ["hr-home-office"],
      denied_ids: ["exec-furniture"],
    });

    // generation: the payload holds only the authorized document, and no identity data
    const payload = generationPayload(authorized.bundle);
    expect(payload.documents.map((d) => d.id)).toEqual(["hr-home-office"]);
    expect(JSON.stringify(payload)).not.toContain(EXEC.text);
    expect(JSON.stringify(payload)).not.toContain("alice");

    // evaluation: the forbidden document's own sentence finds no support, and it is not among the evaluated ids,
    // even when the caller hands the full retrieval set to gradeAnswer
    const answer = "Executives may claim up to USD 2000 for office furniture.";
    const input = {
      request_id: "req-1",
      query: request.query,
      answer,
      evidence: [HR, EXEC],
      generation_digest: authorized.digest,
    };
    const { result, audit } = gradeAnswerAudited(input, { access: authorized.access });
    expect(result).toMatchObject({ state: "unsupported", evidence_ids: ["hr-home-office"] });
    expect(audit.evidence).toEqual([{ id: "hr-home-office", revision: "2026-04" }]);
    expect(audit.authorization).toEqual({
      principal: "alice",
      entitlement_version: "1",
      denied_ids: ["exec-furniture"],
    });
    expect(JSON.stringify(audit)).not.toContain(EXEC.text);

    // without the authorization decision the same sentence would be supported: the check above is not vacuous
    expect(gradeAnswerAudited({ ...input, generation_digest: undefined }).result.state).toBe("supported");
  });

  it("re-authorizes when the entitlement changes between requests", async () => {
    const { grants, calls, hook } = store({ alice: ["hr-home-office", "exec-furniture"] });
    const cache = new AuthorizationCache();
    const first = await authorizeEvidence(request, alice, hook, cache);
    expect(first.bundle.documents.map((d) => d.id)).toEqual(["exec-furniture", "hr-home-office"]);

    const again = await authorizeEvidence(request, alice, hook, cache);
    expect(again.cached).toBe(true);
    expect(calls).toEqual(["alice@1"]);

    grants.set("alice", ["hr-home-office"]); // access revoked, entitlement version bumped
    const after = await authorizeEvidence(request, { id: "alice", entitlement_version: "2" }, hook, cache);
    expect(after.cached).toBe(false);
    expect(calls).toEqual(["alice@1", "alice@2"]);
    expect(after.bundle.documents.map((d) => d.id)).toEqual(["hr-home-office"]);
    expect(after.digest).not.toBe(first.digest);
  });

  it("never reuses a decision cached for another principal", async () => {
    const { calls, hook } = store({ alice: ["hr-home-office", "exec-furniture"], bob: ["hr-home-office"] });
    const cache = new AuthorizationCache();
    await authorizeEvidence(request, alice, hook, cache);
    const bob = await authorizeEvidence(request, { id: "bob", entitlement_version: "1" }, hook, cache);
    expect(bob.cached).toBe(false);
    expect(calls).toEqual(["alice@1", "bob@1"]);
    expect(bob.access.allowed_ids).toEqual(["hr-home-office"]);
    expect(bob.bundle.documents.map((d) => d.id)).not.toContain("exec-furniture");
    expect(cache.size).toBe(2);
  });

  it("keys the cache by principal, entitlement version and candidate set", () => {
    const k = (p: Principal, docs: EvidenceDocument[]) => AuthorizationCache.key(p, docs);
    expect(k(alice, [HR, EXEC])).toBe(k(alice, [EXEC, HR]));
    expect(k(alice, [HR, EXEC])).not.toBe(k({ id: "alice", entitlement_version: "2" }, [HR, EXEC]));
    expect(k(alice, [HR, EXEC])).not.toBe(k({ id: "bob", entitlement_version: "1" }, [HR, EXEC]));
    expect(k(alice, [HR, EXEC])).not.toBe(k(alice, [HR, { ...EXEC, revision: "2026-04" }]));
    // ids containing the separator of a naive key cannot collide
    expect(k({ id: "a", entitlement_version: "b|c" }, [])).not.toBe(k({ id: "a|b", entitlement_version: "c" }, []));
  });

  it("ignores ids the hook returns that were not retrieved", async () => {
    const hook: AuthorizeHook = () => ["hr-home-office", "payroll-secret"];
    const r = await authorizeEvidence(request, alice, hook);
    expect(r.access.allowed_ids).toEqual(["hr-home-office"]);
  });

  it("authorizes nothing and caches nothing when the hook fails", async () => {
    const cache = new AuthorizationCache();
    const hook: AuthorizeHook = async () => {
      throw new Error("directory unreachable");
    };
    await expect(authorizeEvidence(request, alice, hook, cache)).rejects.toThrow("directory unreachable");
    expect(cache.size).toBe(0);
  });

  it("rejects a hook result that is not a list of ids, caching nothing", async () => {
    // a bare string is iterable: its characters would become allowed ids
    const request1 = { ...request, documents: [...request.documents, { id: "h", revision: "1", text: "one letter" }] };
    const cache = new AuthorizationCache();
    for (const bad of ["hr-home-office", null, [1], { ids: ["hr-home-office"] }]) {
      const hook = (() => bad) as unknown as AuthorizeHook;
      await expect(authorizeEvidence(request1, alice, hook, cache)).rejects.toThrow(
        "the authorize hook must return document ids (an iterable of strings)",
      );
    }
    expect(cache.size).toBe(0);
  });

  it("rejects a principal without an entitlement version", async () => {
    const { hook } = store({});
    await expect(authorizeEvidence(request, { id: "alice", entitlement_version: "" }, hook)).rejects.toThrow(
      /principal\.entitlement_version/,
    );
  });

  it("evicts the oldest decision beyond its size", async () => {
    const { hook } = store({});
    const cache = new AuthorizationCache(1);
    await authorizeEvidence(request, alice, hook, cache);
    await authorizeEvidence(request, { id: "bob", entitlement_version: "1" }, hook, cache);
    expect(cache.size).toBe(1);
    expect(cache.get(alice, request.documents)).toBeUndefined();
  });
});
