// The drafter's `verified` against a deliberately naive reference of specs/claim-grammar.md and specs/json-shapes.md (token
// lists from the literal §3 pipeline, the two claim shapes parsed by hand): every field of every
// generated draft, and the approver's record check on mutated values, must agree with it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { draftAction, verifyProposal } from "../../src/actions/index.js";
import type { ClaimRole, GroundedClaim } from "../../src/answers/types.js";
import type { EvidenceRecord } from "../../src/core/index.js";
import { referenceContains } from "../core/reference.js";
import { claim, rec, result } from "./fixtures.js";

// the labels of specs/claim-grammar.md, written out again
const LABELS = ["Recurring failure", "Documented incident", "Resolving change", "Motivating ticket"];

/** specs/claim-grammar.md by hand: shared-fragment when the text has that form (with a known label), else snippet. */
function referenceSupported(text: string, support: readonly EvidenceRecord[]): boolean {
  if (support.length === 0) return false;
  const m = /^([^:"\n]+): "([\s\S]*)" appears in ('[^']*'(?: and '[^']*')+)\.$/.exec(text);
  if (m !== null) {
    if (!LABELS.includes(m[1]!)) return false;
    const named = [...m[3]!.matchAll(/'([^']*)'/g)].map((x) => x[1]!);
    const cited = support.map((r) => r.id);
    const same = new Set(named).size === new Set(cited).size && named.every((id) => cited.includes(id));
    return named.length >= 2 && support.length >= 2 && same && support.every((r) => referenceContains(m[2]!, r.text));
  }
  return support.some((r) => referenceContains(text, r.text));
}

/** specs/json-shapes.md by hand: the claim is supported and the value is its text or in one cited record. */
function referenceVerified(value: string, claimText: string, support: readonly EvidenceRecord[]): boolean {
  const faithful =
    value === claimText ? referenceContains(value, value) : support.some((r) => referenceContains(value, r.text));
  return faithful && referenceSupported(claimText, support);
}

const WORDS = [
  "Straße",
  "strasse",
  "café",
  "cafe\u0301",
  "ﬁle",
  "file",
  "error",
  "TS2322",
  "x",
  "ÉCHEC",
  "échec",
  "a.b",
  "--",
  "42",
  "٤٢",
  "Ωmega",
];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((w) => w.join(" "));
const ROLES: ClaimRole[] = ["run", "log", "prior_occurrence", "documented_incident"];

const drafts = fc.uniqueArray(text, { minLength: 2, maxLength: 6 }).chain((texts) => {
  const recs = texts.map((t, i) => rec(`log:1:${i + 1}`, "log-line", [["line", String(i + 1)]], t));
  const oneClaim = (role: ClaimRole) =>
    fc
      .record({
        a: fc.nat(),
        b: fc.nat(),
        kind: fc.constantFrom("slice", "free", "shared"),
        label: fc.constantFrom("Recurring failure", "Documented incident", "Shared", "Root cause confirmed"),
        free: text,
        from: fc.nat(),
        len: fc.nat(),
      })
      .map(({ a, b, kind, label, free, from, len }): GroundedClaim => {
        const first = recs[a % recs.length]!;
        const second = recs[b % recs.length]!;
        const words = first.text.split(" ");
        const start = from % words.length;
        const slice = words.slice(start, start + 1 + (len % (words.length - start))).join(" ");
        if (kind === "shared" && first !== second)
          return claim(role, `${label}: "${slice}" appears in '${first.id}' and '${second.id}'.`, [first, second]);
        return claim(role, kind === "free" ? free : slice, [first]);
      });
  return fc
    .tuple(oneClaim("failure_signature"), fc.array(fc.constantFrom(...ROLES).chain(oneClaim), { maxLength: 6 }))
    .map(([sig, rest]) => ({ recs, grounding: result("rca", "run 1", [sig, ...rest]) }));
});

describe("drafter against the naive reference", () => {
  it("every field's verified equals the reference verdict", () => {
    fc.assert(
      fc.property(drafts, ({ recs, grounding }) => {
        const p = draftAction("incident", grounding);
        if (p.refused) return;
        const byId = new Map(recs.map((r) => [r.id, r]));
        const sig = grounding.claims[0]!;
        const sigSupport = sig.support.map((s) => byId.get(s.id)!);
        expect(p.fields[0]!.verified).toBe(referenceVerified(p.fields[0]!.value, sig.text, sigSupport));
        grounding.claims.forEach((c, i) => {
          const support = c.support.map((s) => byId.get(s.id)!);
          expect(p.fields[i + 1]!.verified).toBe(referenceVerified(c.text, c.text, support));
        });
      }),
      { numRuns: 400 },
    );
  });

  it("the approver's record check agrees with the reference on mutated values", () => {
    fc.assert(
      fc.property(drafts, fc.nat(), text, ({ recs, grounding }, k, extra) => {
        const p = draftAction("incident", grounding);
        if (p.fields.length === 0) return;
        const i = k % p.fields.length;
        const value = `${p.fields[i]!.value} ${extra}`;
        const mutated = { ...p, fields: p.fields.map((f, j) => (j === i ? { ...f, value } : f)) };
        const byId = new Map(recs.map((r) => [r.id, r]));
        const check = verifyProposal(mutated, (id) => byId.get(id));
        const support = p.fields[i]!.support.map((id) => byId.get(id)!);
        expect(check.fields[i]!.verified).toBe(referenceSupported(value, support));
      }),
      { numRuns: 400 },
    );
  });
});
