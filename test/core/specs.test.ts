// Pins specs/*.md: every row of their example tables is checked against the code.
import { describe, expect, it } from "vitest";
import {
  type Bindings,
  type Claim,
  compareScalars,
  type Condition,
  type ConditionCode,
  contains,
  ERROR_CODES,
  evaluateConditions,
  type EvidenceRecord,
  isSupported,
  normalize,
  type Row,
  type Scalar,
  scalarEquals,
  type SupportReason,
} from "../../src/core/index.js";
import { specJsonBlock, specTable, value, word, yes } from "./spec-tables.js";

// Record<Union, true> makes the type checker fail here when a code is added to the union and not listed.
const ALL_CONDITION_CODES: Record<ConditionCode, true> = {
  not_equal: true,
  equal: true,
  not_greater: true,
  not_greater_or_equal: true,
  not_less: true,
  not_less_or_equal: true,
  not_in_list: true,
  in_list: true,
  not_null: true,
  is_null: true,
  not_comparable: true,
  not_scalar: true,
  no_rows: true,
  row_count: true,
  column_missing: true,
  binding_missing: true,
};
const ALL_SUPPORT_REASONS: Record<SupportReason, true> = {
  contained_in_record: true,
  fragment_in_every_record: true,
  no_support: true,
  empty_claim: true,
  not_contained: true,
  unknown_label: true,
  too_few_citations: true,
  citation_mismatch: true,
  fragment_missing: true,
};

describe("specs/normalization.md", () => {
  const norm = specTable("normalization.md", "Normalization examples");
  const cont = specTable("normalization.md", "Containment examples");

  it("has its example tables", () => {
    expect(norm.header).toStrictEqual(["input", "normalized"]);
    expect(norm.rows.length).toBeGreaterThanOrEqual(30);
    expect(cont.header).toStrictEqual(["fragment", "text", "contains", "why"]);
    expect(cont.rows.length).toBeGreaterThanOrEqual(15);
  });

  it.each(norm.rows.map((r) => [r[0]!, r[1]!]))("normalize(%s) is %s", (input, out) => {
    expect(normalize(value(input) as string)).toBe(value(out));
  });

  it.each(cont.rows.map((r) => [r[0]!, r[1]!, r[2]!]))("contains(%s, %s) is %s", (f, t, c) => {
    expect(contains(value(f) as string, value(t) as string)).toBe(yes(c));
  });
});

describe("specs/claim-grammar.md", () => {
  const recordsTable = specTable("claim-grammar.md", "Records used in the examples");
  const records = new Map<string, EvidenceRecord>(
    recordsTable.rows.map(([id, text]) => {
      const rid = word(id!)!;
      return [
        rid,
        { id: rid, source: "spec", locator: { kind: "example", parts: [["id", rid]] }, text: value(text!) as string },
      ];
    }),
  );
  const claims = specTable("claim-grammar.md", "Claim examples");
  const reasons = specTable("claim-grammar.md", "Reasons");

  it("has its example tables", () => {
    expect(claims.header).toStrictEqual(["claim", "cites", "supported", "shape", "reason", "record"]);
    expect(claims.rows.length).toBeGreaterThanOrEqual(15);
  });

  it("lists exactly the support reasons of the code, with whether each supports", () => {
    expect(reasons.rows.map((r) => word(r[0]!)).sort()).toStrictEqual(Object.keys(ALL_SUPPORT_REASONS).sort());
    for (const r of reasons.rows) {
      const reason = word(r[0]!);
      expect(yes(r[1]!), reason).toBe(reason === "contained_in_record" || reason === "fragment_in_every_record");
    }
  });

  it("uses every reason in some example", () => {
    expect(new Set(claims.rows.map((r) => word(r[4]!)))).toStrictEqual(new Set(Object.keys(ALL_SUPPORT_REASONS)));
  });

  it.each(claims.rows.map((r) => [r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, r[5]!]))(
    "%s citing [%s] is supported: %s",
    (text, cites, supported, shape, reason, record) => {
      const support = cites
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .map((id) => {
          const r = records.get(id);
          if (r === undefined) throw new Error(`unknown record ${id}`);
          return r;
        });
      const claim: Claim = { text: value(text) as string, support };
      const expected: { supported: boolean; shape: string; reason: string; record?: string } = {
        supported: yes(supported),
        shape: word(shape)!,
        reason: word(reason)!,
      };
      const rec = word(record);
      if (rec !== undefined) expected.record = rec;
      expect(isSupported(claim)).toStrictEqual(expected);
    },
  );
});

describe("specs/match-semantics.md", () => {
  const eq = specTable("match-semantics.md", "Equality examples");
  const ord = specTable("match-semantics.md", "Ordering examples");
  const codes = specTable("match-semantics.md", "Condition codes");
  const conds = specTable("match-semantics.md", "Condition examples");
  const bindings = specJsonBlock("match-semantics.md", "Bindings used in the examples") as Bindings;

  it("has its example tables", () => {
    expect(eq.rows.length).toBeGreaterThanOrEqual(25);
    expect(ord.rows.length).toBeGreaterThanOrEqual(20);
    expect(conds.rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(eq.rows.map((r) => [r[0]!, r[1]!, r[2]!]))("%s equals %s: %s (both ways)", (a, b, e) => {
    const x = value(a) as Scalar;
    const y = value(b) as Scalar;
    expect(scalarEquals(x, y)).toBe(yes(e));
    expect(scalarEquals(y, x)).toBe(yes(e));
  });

  it.each(ord.rows.map((r) => [r[0]!, r[1]!, r[2]!]))("%s against %s orders %s (and the reverse)", (a, b, o) => {
    const x = value(a) as Scalar;
    const y = value(b) as Scalar;
    const want = { "<": -1, "=": 0, ">": 1, not_comparable: null }[word(o)!];
    if (want === undefined) throw new Error(`unknown order ${o}`);
    expect(compareScalars(x, y)).toBe(want);
    expect(compareScalars(y, x)).toBe(want === null ? null : want === 0 ? 0 : -want);
  });

  it("lists exactly the condition codes of the code, with the status each implies", () => {
    expect(codes.rows.map((r) => word(r[0]!)).sort()).toStrictEqual(Object.keys(ALL_CONDITION_CODES).sort());
    for (const r of codes.rows) {
      const code = word(r[0]!) as ConditionCode;
      expect(r[1], code).toBe(ERROR_CODES.has(code) ? "error" : "mismatch");
    }
  });

  it("uses every condition code in some example", () => {
    const used = new Set(conds.rows.map((r) => word(r[3]!)).filter((c) => c !== undefined));
    expect([...used].sort()).toStrictEqual(Object.keys(ALL_CONDITION_CODES).sort());
  });

  it.each(conds.rows.map((r) => [r[0]!, r[1]!, r[2]!, r[3]!, r[4]!]))(
    "rows %s, condition %s: ok %s, code %s, status %s",
    (rows, cond, ok, code, status) => {
      const r = evaluateConditions(value(rows) as Row[], [value(cond) as Condition], bindings);
      expect(r.conditions[0]!.ok).toBe(yes(ok));
      expect(r.conditions[0]!.code).toBe(word(code));
      expect(r.status).toBe(word(status));
    },
  );
});
