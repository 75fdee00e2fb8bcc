// Properties of the drafter and the approver's check over generated evidence: the projection is
// lossless, `verified` equals the core verdict, and any one-field mutation is caught.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ActionProposal, draftAction, parseProposal, verifyProposal } from "../../src/actions/index.js";
import type { ClaimRole, GroundedClaim } from "../../src/answers/types.js";
import { contains, type EvidenceRecord, isSupported } from "../../src/core/index.js";
import { claim, rec, result } from "./fixtures.js";

const WORDS = [
  "error",
  "TS2322",
  "npm",
  "ERR!",
  "cache",
  "key",
  "build",
  "failed",
  "string",
  "number",
  "src/a.ts(3,1):",
  "exit",
  "Ünïcode",
  "é",
  "--",
  "42",
];
const RCA_ROLES: ClaimRole[] = ["run", "log", "prior_occurrence", "documented_incident", "resolving_change"];

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((w) => w.join(" "));
const records = fc.uniqueArray(text, { minLength: 2, maxLength: 8 }).map((texts) =>
  texts.map((t, i) =>
    rec(
      `log:1:${i + 1}`,
      "log-line",
      [
        ["run", "1"],
        ["line", String(i + 1)],
      ],
      t,
    ),
  ),
);

/** A claim citing 1–2 records: a token slice of the first (usually supported) or free text. */
function claimOf(recs: EvidenceRecord[], role: ClaimRole) {
  return fc
    .record({
      a: fc.nat(),
      b: fc.nat(),
      from: fc.nat(),
      len: fc.nat(),
      own: fc.boolean(),
      free: text,
      extra: fc.boolean(),
    })
    .map(({ a, b, from, len, own, free, extra }): GroundedClaim => {
      const first = recs[a % recs.length]!;
      const words = first.text.split(" ");
      const start = from % words.length;
      const slice = words.slice(start, start + 1 + (len % (words.length - start))).join(" ");
      const support = extra ? [first, recs[b % recs.length]!].filter((r, i, all) => all.indexOf(r) === i) : [first];
      return claim(role, own ? slice : free, support);
    });
}

const rcaCase = records.chain((recs) =>
  fc
    .tuple(
      claimOf(recs, "failure_signature"),
      fc.array(
        fc.constantFrom(...RCA_ROLES).chain((role) => claimOf(recs, role)),
        { maxLength: 8 },
      ),
      fc.nat(),
    )
    .map(([sig, rest, at]) => {
      const claims = [...rest];
      claims.splice(at % (claims.length + 1), 0, sig);
      return { recs, grounding: result("rca", "why did run 1 fail?", claims) };
    }),
);

const ABSENT = "zqxv9";

function replaceField(p: ActionProposal, i: number, change: Partial<ActionProposal["fields"][number]>): ActionProposal {
  const fields = p.fields.map((f, k) => (k === i ? { ...f, ...change } : f));
  return { ...p, fields };
}

describe("drafter properties", () => {
  it("every field after the title is its claim's text, support ids and core verdict", () => {
    fc.assert(
      fc.property(rcaCase, ({ grounding }) => {
        const p = draftAction("incident", grounding);
        if (p.refused) {
          // only when the signature claim cites no record holding it: there is no verbatim title
          const sig = grounding.claims.find((c) => c.role === "failure_signature")!;
          expect(sig.support.some((s) => contains(sig.text, s.text))).toBe(false);
          return;
        }
        expect(p.fields.length).toBe(grounding.claims.length + 1);
        grounding.claims.forEach((c, i) => {
          const f = p.fields[i + 1]!;
          expect([f.role, f.value, f.support]).toEqual([c.role, c.text, c.support.map((s) => s.id)]);
          expect(f.verified).toBe(isSupported({ text: c.text, support: c.support.map((s) => ({ ...s })) }).supported);
        });
        expect(p.all_grounded).toBe(p.fields.every((f) => f.verified));
      }),
      { numRuns: 300 },
    );
  });

  it("a drafted title is a line of the one record it cites, and verifies", () => {
    fc.assert(
      fc.property(rcaCase, ({ recs, grounding }) => {
        const p = draftAction("incident", grounding);
        if (p.refused) return;
        const t = p.fields[0]!;
        const source = recs.find((r) => r.id === t.support[0])!;
        expect(t.support).toHaveLength(1);
        expect(source.text.split("\n").map((l) => l.trim())).toContain(t.value);
        expect(t.verified).toBe(grounding.claims.find((c) => c.role === "failure_signature")!.verified);
      }),
      { numRuns: 200 },
    );
  });

  it("JSON round trip is lossless and the schema accepts every draft", () => {
    fc.assert(
      fc.property(rcaCase, ({ grounding }) => {
        const p = draftAction("incident", grounding);
        const json = JSON.stringify(p);
        expect(JSON.stringify(parseProposal(JSON.parse(json)))).toBe(json);
        expect(JSON.parse(json)).toEqual(p);
      }),
      { numRuns: 200 },
    );
  });

  it("the approver's check agrees with the drafter on an untouched draft", () => {
    fc.assert(
      fc.property(rcaCase, ({ recs, grounding }) => {
        const p = draftAction("incident", grounding);
        const byId = new Map(recs.map((r) => [r.id, r]));
        const check = verifyProposal(p, (id) => byId.get(id), { grounding });
        expect(check.fields.map((f) => f.verified)).toEqual(p.fields.map((f) => f.verified));
        expect(check.all_verified).toBe(p.all_grounded);
      }),
      { numRuns: 200 },
    );
  });

  it("an appended unsupported token, a splice across two records or a swapped id fails the field", () => {
    const mutation = fc.record({ field: fc.nat(), kind: fc.constantFrom("append", "splice", "swap"), other: fc.nat() });
    fc.assert(
      fc.property(rcaCase, mutation, ({ recs, grounding }, { field, kind, other }) => {
        const p = draftAction("incident", grounding);
        const verified = p.fields.map((f, i) => [f, i] as const).filter(([f]) => f.verified);
        if (verified.length === 0) return;
        const [f, i] = verified[field % verified.length]!;
        const byId = new Map(recs.map((r) => [r.id, r]));
        const lookup = (id: string) => byId.get(id);
        const inOne = (value: string, ids: readonly string[]) => ids.some((id) => contains(value, byId.get(id)!.text));
        let mutated: ActionProposal;
        if (kind === "append") {
          mutated = replaceField(p, i, { value: `${f.value} ${ABSENT}` });
        } else if (kind === "splice") {
          const a = byId.get(f.support[0]!)!;
          const b = recs[other % recs.length]!;
          const value = `${a.text} ${b.text}`;
          if (a === b || inOne(value, [a.id, b.id])) return; // the splice happens to be in one record
          mutated = replaceField(p, i, { value, support: [a.id, b.id] });
        } else {
          const b = recs[other % recs.length]!;
          if (f.support.includes(b.id)) return;
          mutated = replaceField(p, i, { support: [b.id] });
          if (inOne(f.value, [b.id])) {
            // the other record holds the value too: only the workspace comparison catches the swap
            expect(verifyProposal(mutated, lookup, { grounding }).failing).toContain(f.name);
            return;
          }
        }
        const expected = p.fields.filter((g, k) => k === i || !g.verified).map((g) => g.name);
        expect(verifyProposal(mutated, lookup).failing).toEqual(expected);
        expect(verifyProposal(mutated, lookup, { grounding }).failing).toContain(f.name);
      }),
      { numRuns: 400 },
    );
  });
});
