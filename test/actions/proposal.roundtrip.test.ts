// Any well-formed proposal survives JSON and the schema unchanged, byte for byte; previews of any
// proposal never throw and never show an unverified value.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ActionProposal, parseProposal, renderGithubIssue, renderMarkdown } from "../../src/actions/index.js";
import type { ClaimRole } from "../../src/answers/types.js";

const ROLES: ClaimRole[] = [
  "run",
  "log",
  "failure_signature",
  "prior_occurrence",
  "documented_incident",
  "resolving_change",
  "pull_request",
  "code_change",
  "motivating_ticket",
  "ticket",
];
const str = fc.string({ unit: "binary", maxLength: 40 });

const proposal: fc.Arbitrary<ActionProposal> = fc
  .record({
    kind: fc.constantFrom("incident", "pr_summary"),
    domain: str,
    question: str,
    route: fc.record({ kind: fc.constantFrom("rca", "summary", "none"), reason: str }),
    grounded: fc.boolean(),
    refused: fc.boolean(),
    refusal: fc.option(str, { nil: null }),
    fields: fc.uniqueArray(
      fc.record({
        name: str.filter((s) => s.length > 0),
        role: fc.constantFrom(...ROLES),
        value: str,
        verified: fc.boolean(),
        support: fc.array(
          str.filter((s) => s.length > 0),
          { maxLength: 3 },
        ),
      }),
      { selector: (f) => f.name, maxLength: 6 },
    ),
    all_grounded: fc.boolean(),
  })
  // a refusal carries its reason and no fields; a draft has no refusal (specs/json-shapes.md)
  .map((p) => ({
    ...p,
    refusal: p.refused ? (p.refusal ?? "") : null,
    fields: p.refused ? [] : p.fields,
    requires_approval: true as const,
    executed: false as const,
  }));

describe("proposal round trip", () => {
  it("JSON → schema → JSON is the identity, byte for byte", () => {
    fc.assert(
      fc.property(proposal, (p) => {
        const json = JSON.stringify(p);
        const back = parseProposal(JSON.parse(json));
        expect(back).toEqual(p);
        expect(JSON.stringify(back)).toBe(json);
      }),
      { numRuns: 500 },
    );
  });

  it("previews never throw, always carry the notice, and never show an unverified value", () => {
    const MARK = "UNVERIFIED\u2063VALUE";
    fc.assert(
      fc.property(proposal, (p) => {
        const marked = { ...p, fields: p.fields.map((f) => (f.verified ? f : { ...f, value: `${f.value}${MARK}` })) };
        for (const text of [
          renderMarkdown(marked),
          renderGithubIssue(marked).body,
          renderGithubIssue(marked).title ?? "",
        ]) {
          expect(text).not.toContain(MARK);
        }
        expect(renderMarkdown(marked)).toContain("nothing was executed");
      }),
      { numRuns: 500 },
    );
  });
});
