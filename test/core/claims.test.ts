import { describe, expect, it } from "vitest";
import {
  type Claim,
  ClaimGrammar,
  type ClaimShape,
  defaultClaimGrammar,
  isSupported,
  normalizedText,
  renderLocator,
  SHARED_FRAGMENT_LABELS,
  sharedFragmentShape,
  snippetShape,
} from "../../src/core/index.js";
import { claim, record } from "./records.js";

const r1 = record(
  "log-1",
  "build\tcompile\t2026-11-01T10:00:00Z src/a.ts(3,1): error TS2322: Type 'string' is not assignable to type 'number'.",
);
const r2 = record(
  "log-2",
  "build\tcompile\t2026-11-02T10:00:00Z src/a.ts(3,1): error TS2322: Type 'string' is not assignable to type 'number'.",
);
const r3 = record("ticket-7", "INC-7: builds fail with error TS2322 in src/a.ts since the refactor");

describe("snippet claims", () => {
  it("are supported when the claim text is contained in one cited record", () => {
    expect(isSupported(claim("error TS2322: Type 'string' is not assignable", r3, r1))).toStrictEqual({
      supported: true,
      shape: "snippet",
      reason: "contained_in_record",
      record: "log-1",
    });
  });

  it("are unsupported when only an uncited record holds the text", () => {
    expect(isSupported(claim("not assignable to type number", r3))).toStrictEqual({
      supported: false,
      shape: "snippet",
      reason: "not_contained",
    });
  });

  it("are unsupported when the text is spliced across two records", () => {
    const a = record("a", "the deploy failed");
    const b = record("b", "because the token expired");
    expect(isSupported(claim("the deploy failed because the token expired", a, b)).supported).toBe(false);
    expect(isSupported(claim("the deploy failed", a, b)).supported).toBe(true);
  });

  it("respect token boundaries", () => {
    expect(isSupported(claim("up to $5", record("p", "up to $50 per chair"))).supported).toBe(false);
    expect(isSupported(claim("error TS232", r1)).supported).toBe(false);
  });

  it("with an empty normalized text are unsupported", () => {
    for (const text of ["", "   ", "!!! ---", "\u0301"]) {
      expect(isSupported(claim(text, r1))).toStrictEqual({ supported: false, shape: "snippet", reason: "empty_claim" });
    }
  });
});

describe("claims without support", () => {
  it("are unsupported with no_support, for an empty or missing citation list", () => {
    expect(isSupported(claim("error TS2322"))).toStrictEqual({ supported: false, shape: "none", reason: "no_support" });
    expect(isSupported({ text: "error TS2322", support: undefined } as unknown as Claim).reason).toBe("no_support");
    expect(isSupported({ text: "error TS2322", support: "log-1" } as unknown as Claim).reason).toBe("no_support");
  });
});

describe("malformed claims", () => {
  it("are unsupported, never an exception", () => {
    const malformed: [unknown, string][] = [
      [null, "no_support"],
      [undefined, "no_support"],
      ["error TS2322", "no_support"],
      [{ text: "error TS2322" }, "no_support"],
      [{ text: "error TS2322", support: [null] }, "no_support"],
      [{ text: "error TS2322", support: [r1, null] }, "no_support"],
      [{ text: "error TS2322", support: [{ id: "x" }] }, "no_support"],
      [{ text: "error TS2322", support: [{ id: 1, text: "error TS2322" }] }, "no_support"],
      [{ text: 42, support: [r1] }, "empty_claim"],
      [{ text: null, support: [r1] }, "empty_claim"],
    ];
    for (const [c, reason] of malformed) {
      expect(isSupported(c as Claim), JSON.stringify(c)).toStrictEqual({ supported: false, shape: "none", reason });
    }
  });
});

describe("shared-fragment claims", () => {
  const text = `Recurring failure: "error TS2322: Type 'string' is not assignable" appears in 'log-1' and 'log-2'.`;

  it("are supported when the fragment is in every cited record and the named ids equal the cited ids", () => {
    expect(isSupported(claim(text, r1, r2))).toStrictEqual({
      supported: true,
      shape: "shared-fragment",
      reason: "fragment_in_every_record",
    });
    expect(isSupported(claim(text, r2, r1)).supported).toBe(true); // compared as sets
  });

  it("work with three citations", () => {
    const t = `Documented incident: "error TS2322" appears in 'log-1' and 'log-2' and 'ticket-7'.`;
    expect(isSupported(claim(t, r1, r2, r3)).supported).toBe(true);
  });

  it("fail with citation_mismatch when a named id is not cited, or a cited record is not named", () => {
    const named3 = `Recurring failure: "error TS2322" appears in 'log-1' and 'log-2' and 'ticket-7'.`;
    expect(isSupported(claim(named3, r1, r2))).toStrictEqual({
      supported: false,
      shape: "shared-fragment",
      reason: "citation_mismatch",
    });
    const wrong = `Recurring failure: "error TS2322" appears in 'log-1' and 'log-9'.`;
    expect(isSupported(claim(wrong, r1, r2)).reason).toBe("citation_mismatch");
    expect(isSupported(claim(text, r1, r2, r3)).reason).toBe("citation_mismatch");
    const twice = `Recurring failure: "error TS2322" appears in 'log-1' and 'log-1'.`;
    expect(isSupported(claim(twice, r1, r2)).reason).toBe("citation_mismatch");
  });

  it("fail with too_few_citations when fewer than two records are cited", () => {
    expect(isSupported(claim(text, r1))).toStrictEqual({
      supported: false,
      shape: "shared-fragment",
      reason: "too_few_citations",
    });
  });

  it("fail with fragment_missing, naming the record that lacks the fragment", () => {
    const t = `Recurring failure: "is not assignable to type 'number'" appears in 'log-1' and 'ticket-7'.`;
    expect(isSupported(claim(t, r1, r3))).toStrictEqual({
      supported: false,
      shape: "shared-fragment",
      reason: "fragment_missing",
      record: "ticket-7",
    });
  });

  it("fail with empty_claim when the fragment normalizes to nothing", () => {
    const t = `Recurring failure: "::" appears in 'log-1' and 'log-2'.`;
    expect(isSupported(claim(t, r1, r2)).reason).toBe("empty_claim");
  });

  it("that fail are not rescued by the snippet shape, even when a cited record holds the whole sentence", () => {
    const t = `Recurring failure: "deleted the database" appears in 'x' and 'y'.`;
    const x = record("x", `note: ${t}`);
    const y = record("y", "nothing relevant");
    expect(snippetShape.check(t, claim(t, x, y)).supported).toBe(true); // as a snippet it would pass
    expect(isSupported(claim(t, x, y))).toStrictEqual({
      supported: false,
      shape: "shared-fragment",
      reason: "fragment_missing",
      record: "y",
    });
  });

  it("fail with unknown_label when the label is free text, however true the fragment", () => {
    const t = `Root cause confirmed and prod rollback approved by the CTO, no data was lost: "error TS2322" appears in 'log-1' and 'log-2'.`;
    expect(isSupported(claim(t, r1, r2))).toStrictEqual({
      supported: false,
      shape: "shared-fragment",
      reason: "unknown_label",
    });
    // a label is matched as written: another case or a shortened label is free text too
    for (const label of ["recurring failure", "Recurring Failure", "Recurring", " Recurring failure"])
      expect(isSupported(claim(`${label}: "error TS2322" appears in 'log-1' and 'log-2'.`, r1, r2)).reason).toBe(
        "unknown_label",
      );
    // and a record quoting the whole sentence does not rescue it as a snippet
    const quoting = record("q", `forwarded: ${t}`);
    expect(isSupported(claim(t, quoting, r2)).reason).toBe("unknown_label");
  });

  it("accept every label of the vocabulary, and only those", () => {
    expect([...SHARED_FRAGMENT_LABELS]).toStrictEqual([
      "Recurring failure",
      "Documented incident",
      "Resolving change",
      "Motivating ticket",
    ]);
    for (const label of SHARED_FRAGMENT_LABELS)
      expect(isSupported(claim(`${label}: "error TS2322" appears in 'log-1' and 'log-2'.`, r1, r2)).supported).toBe(
        true,
      );
  });

  it("are recognized only in the exact grammar; near misses are snippets", () => {
    expect(sharedFragmentShape.recognize(`Label: "frag" appears in 'a'.`)).toBeNull(); // one name
    expect(sharedFragmentShape.recognize(`Label: "frag" appears in 'a' and 'b'`)).toBeNull(); // no final period
    expect(sharedFragmentShape.recognize(`Label: "frag" appears in 'a', 'b'.`)).toBeNull();
    expect(sharedFragmentShape.recognize(`Label: "frag" appears in 'a' and 'b'.`)).toStrictEqual({
      label: "Label",
      fragment: "frag",
      ids: ["a", "b"],
    });
  });
});

describe("the claim grammar registry", () => {
  const ticketShape: ClaimShape<string> = {
    name: "ticket-id",
    recognize: (text) => /^ticket (\S+)$/.exec(text)?.[1] ?? null,
    check: (id, c) =>
      c.support.some((r) => r.id === id)
        ? { supported: true, shape: "ticket-id", reason: "contained_in_record", record: id }
        : { supported: false, shape: "ticket-id", reason: "citation_mismatch" },
  };

  it("tries a registered shape before the defaults, and a failing registered shape is final", () => {
    const g = defaultClaimGrammar.with(ticketShape);
    expect(g.shapes.map((s) => s.name)).toStrictEqual(["ticket-id", "shared-fragment", "snippet"]);
    expect(isSupported(claim("ticket ticket-7", r3), g).shape).toBe("ticket-id");
    const t = record("t", "ticket nope");
    expect(isSupported(claim("ticket nope", t), g)).toStrictEqual({
      supported: false,
      shape: "ticket-id",
      reason: "citation_mismatch",
    });
    expect(isSupported(claim("ticket nope", t)).supported).toBe(true); // the default grammar is unchanged
  });

  it("is unsupported when no shape recognizes the claim", () => {
    const g = new ClaimGrammar([ticketShape]);
    expect(isSupported(claim("error TS2322", r1), g)).toStrictEqual({
      supported: false,
      shape: "none",
      reason: "not_contained",
    });
  });
});

describe("evidence helpers", () => {
  it("renders a locator for people", () => {
    expect(renderLocator(r1.locator)).toBe("log-line run=42 line=log-1");
  });

  it("caches normalized text per record and notices a replaced text", () => {
    const r = { ...record("m", "Crème Brûlée") } as { id: string; text: string };
    expect(normalizedText(r)).toBe("creme brulee");
    r.text = "Other TEXT";
    expect(normalizedText(r)).toBe("other text");
  });
});
