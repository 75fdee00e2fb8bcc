import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allowListHook, AuthorizationCache, authorizeEvidence } from "../../src/grading/authorize.js";
import { generationPayload } from "../../src/grading/bundle.js";
import { gradeAnswerAudited } from "../../src/grading/grade.js";

const doc = fc.record({
  id: fc.constantFrom("a", "b", "c", "d"),
  revision: fc.constantFrom("1", "2"),
  text: fc.string({ minLength: 1, maxLength: 20 }).map((t) => `text-${t}`),
});
const principal = fc.record({ id: fc.constantFrom("alice", "bob"), entitlement_version: fc.constantFrom("1", "2") });
const acl = fc.dictionary(fc.constantFrom("alice|1", "alice|2", "bob|1", "bob|2"), fc.subarray(["a", "b", "c", "d"]));

describe("authorization, random documents and entitlements", () => {
  it("a denied document never reaches generation, evaluation or the audit record, even through a shared cache", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(doc, { maxLength: 6, selector: (d) => `${d.id}@${d.revision}` }),
        fc.array(principal, { minLength: 1, maxLength: 5 }),
        acl,
        async (docs, principals, grants) => {
          const cache = new AuthorizationCache();
          for (const p of principals) {
            const allow = grants[`${p.id}|${p.entitlement_version}`] ?? [];
            const authorized = await authorizeEvidence(
              { request_id: "r", query: "q", documents: docs },
              p,
              allowListHook(allow),
              cache,
            );
            const denied = docs.filter((d) => !allow.includes(d.id));
            expect(authorized.bundle.documents.every((d) => allow.includes(d.id))).toBe(true);
            expect(authorized.bundle.documents).toHaveLength(docs.length - denied.length);
            const payload = JSON.stringify(generationPayload(authorized.bundle));
            const { result, audit } = gradeAnswerAudited(
              {
                request_id: "r",
                query: "q",
                answer: docs.map((d) => d.text).join(". "),
                evidence: docs,
                generation_digest: authorized.digest,
              },
              { access: authorized.access },
            );
            expect(result.reason).not.toBe("evidence_mismatch");
            for (const d of denied) {
              expect(result.evidence_ids).not.toContain(d.id);
              expect(audit.evidence.map((e) => e.id)).not.toContain(d.id);
              if (!docs.some((o) => o !== d && o.text.includes(d.text)))
                expect(payload).not.toContain(JSON.stringify(d.text));
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
