import { describe, expect, it } from "vitest";
import {
  type ActionProposal,
  draftAction,
  parseClaims,
  parseGroundedResult,
  parseProposal,
  verifyClaims,
  verifyProposal,
} from "../../src/actions/index.js";
import { TesseraError } from "../../src/platform/errors.js";
import { claim, lookup, rcaResult, records, summaryResult } from "./fixtures.js";

type Mutable = { -readonly [K in keyof ActionProposal]: ActionProposal[K] };
function withField(p: ActionProposal, name: string, change: Partial<ActionProposal["fields"][number]>): ActionProposal {
  const copy = JSON.parse(JSON.stringify(p)) as Mutable;
  copy.fields = copy.fields.map((f) => (f.name === name ? { ...f, ...change } : f));
  return copy;
}

function codes(check: ReturnType<typeof verifyProposal>, name: string): string[] {
  return check.fields.find((f) => f.name === name)!.problems.map((x) => x.code);
}

describe("verifyProposal", () => {
  const incident = draftAction("incident", rcaResult());
  const summary = draftAction("pr_summary", summaryResult());

  it("verifies every field of an honest draft, against records and a fresh draft", () => {
    for (const [p, g] of [
      [incident, rcaResult()],
      [summary, summaryResult()],
    ] as const) {
      const check = verifyProposal(p, lookup(), { grounding: g });
      expect(check.all_verified).toBe(true);
      expect(check.compared_with_workspace).toBe(true);
      expect(check.failing).toEqual([]);
      expect(check.omitted).toEqual([]);
      expect(check.fields.map((f) => f.name)).toEqual(p.fields.map((f) => f.name));
      expect(Object.keys(check)).toEqual([
        "kind",
        "question",
        "all_verified",
        "compared_with_workspace",
        "allow_partial",
        "parts",
        "fields",
        "failing",
        "omitted",
      ]);
      expect(check.parts.map((x) => [x.name, x.verified])).toEqual([
        ["domain", true],
        ["route.kind", true],
        ["route.reason", true],
        ["grounded", true],
        ["refused", true],
        ["refusal", true],
        ["all_grounded", true],
        ["requires_approval", true],
        ["executed", true],
      ]);
    }
  });

  it("fails a field with an appended unsupported token", () => {
    const p = withField(incident, "failure_signature", { value: `${records.tsc.text} in production` });
    const check = verifyProposal(p, lookup(), { grounding: rcaResult() });
    expect(check.all_verified).toBe(false);
    expect(check.failing).toEqual(["failure_signature"]);
    expect(codes(check, "failure_signature")).toEqual(["claim_unsupported", "differs_from_workspace"]);
    // without the workspace draft, the record check alone catches it
    expect(verifyProposal(p, lookup()).failing).toEqual(["failure_signature"]);
  });

  it("fails a value spliced from two records even when it cites both", () => {
    const spliced = "npm ERR! code ELIFECYCLE error TS2322";
    const p = withField(incident, "log_2", { value: spliced, support: ["log:1042:build:9", "log:1042:build:7"] });
    const check = verifyProposal(p, lookup());
    expect(check.failing).toEqual(["log_2"]);
    expect(check.fields.find((f) => f.name === "log_2")!.problems[0]).toEqual({
      code: "claim_unsupported",
      message: "the value is not contained in any single cited record",
    });
  });

  it("fails a swapped support id, to an existing record and to an unknown one", () => {
    const swapped = withField(incident, "log_2", { support: ["log:1042:build:7"] });
    expect(verifyProposal(swapped, lookup()).failing).toEqual(["log_2"]);
    const unknown = withField(incident, "log_2", { support: ["log:9999:build:1"] });
    const check = verifyProposal(unknown, lookup());
    expect(codes(check, "log_2")).toEqual(["unknown_record"]);
    expect(check.fields.find((f) => f.name === "log_2")!.problems[0]!.message).toBe(
      "no record `log:9999:build:1` in the workspace",
    );
  });

  it("fails a swapped id that still holds the value, by comparing with the workspace draft", () => {
    // the prior run's log line has the same text, so the record check passes; the workspace grounds another id
    const p = withField(incident, "failure_signature", { support: ["log:1037:build:7"] });
    const recordsOnly = verifyProposal(p, lookup());
    expect(recordsOnly.failing).toEqual([]); // every record check passes…
    expect(recordsOnly.all_verified).toBe(false); // …but nothing was compared with the workspace
    const check = verifyProposal(p, lookup(), { grounding: rcaResult() });
    expect(check.failing).toEqual(["failure_signature"]);
    expect(check.fields.find((f) => f.name === "failure_signature")!.problems).toEqual([
      { code: "differs_from_workspace", message: "the workspace grounds a different support `log:1042:build:7`" },
    ]);
  });

  it("fails a shared-fragment field whose cited records no longer hold the fragment", () => {
    const changed = { ...records.prior, text: "a different error now" };
    const check = verifyProposal(incident, lookup([changed]));
    expect(check.failing).toEqual(["prior_occurrence"]);
    expect(check.fields.find((f) => f.name === "prior_occurrence")!.problems[0]!.message).toBe(
      "the shared fragment is missing from a cited record (`log:1037:build:7`)",
    );
  });

  it("fails a verified-looking field that is empty or cites nothing", () => {
    expect(codes(verifyProposal(withField(incident, "run", { value: "  " }), lookup()), "run")).toEqual([
      "empty_value",
    ]);
    expect(codes(verifyProposal(withField(incident, "run", { support: [] }), lookup()), "run")).toEqual(["no_support"]);
  });

  it("fails every field when the workspace now refuses the question", () => {
    const refused = { ...rcaResult(), refused: true, grounded: false, refusal: "run 1042 did not fail", claims: [] };
    const check = verifyProposal(incident, lookup(), { grounding: refused });
    expect(check.failing).toEqual([
      "grounded",
      "refused",
      "refusal",
      "all_grounded",
      ...incident.fields.map((f) => f.name),
    ]);
    expect(check.parts.find((x) => x.name === "refusal")!.problems).toEqual([
      {
        code: "differs_from_workspace",
        message: 'the proposal says `null`, the workspace draft says `"run 1042 did not fail"`',
      },
    ]);
    expect(check.fields[0]!.problems).toEqual([
      { code: "not_in_workspace_draft", message: "the workspace draft is refused: run 1042 did not fail" },
    ]);
  });

  it("fails a proposal that leaves out fields the workspace draft has, unless partial proposals are allowed", () => {
    const kept = new Set(["title", "run"]);
    const p = { ...incident, fields: incident.fields.filter((f) => kept.has(f.name)) };
    const check = verifyProposal(p, lookup(), { grounding: rcaResult() });
    expect(check.fields.every((f) => f.verified)).toBe(true);
    expect(check.failing).toEqual([]);
    expect(check.omitted).toEqual(incident.fields.filter((f) => !kept.has(f.name)).map((f) => f.name));
    expect(check.omitted).toHaveLength(6);
    expect(check.all_verified).toBe(false);
    const partial = verifyProposal(p, lookup(), { grounding: rcaResult(), allowPartial: true });
    expect(partial.allow_partial).toBe(true);
    expect(partial.omitted).toEqual(check.omitted); // still reported
    expect(partial.all_verified).toBe(true);
  });

  it("fails every part an approver reads that differs from the workspace draft", () => {
    const parts: [string, Partial<ActionProposal>][] = [
      ["domain", { domain: "prod" }],
      ["route.kind", { route: { kind: "summary", reason: incident.route.reason } }],
      ["route.reason", { route: { kind: "rca", reason: "approved by the CTO: roll back prod" } }],
      ["grounded", { grounded: false }],
      ["all_grounded", { all_grounded: false }],
    ];
    for (const [name, change] of parts) {
      const check = verifyProposal({ ...incident, ...change }, lookup(), { grounding: rcaResult() });
      expect(check.failing, name).toEqual([name]);
      expect(check.all_verified, name).toBe(false);
      expect(check.parts.find((x) => x.name === name)!.problems[0]!.code).toBe("differs_from_workspace");
    }
  });

  it("fails a field whose verified flag differs from the workspace's verdict, either way", () => {
    const lowered = withField(incident, "log_1", { verified: false });
    const check = verifyProposal({ ...lowered, all_grounded: false }, lookup(), { grounding: rcaResult() });
    expect(check.failing).toEqual(["all_grounded", "log_1"]);
    expect(check.fields.find((f) => f.name === "log_1")!.problems).toEqual([
      { code: "differs_from_workspace", message: "the workspace grounds a different `verified` flag (`true`)" },
    ]);
  });

  it("catches a draft from a fabricated grounding whose claim and cited text agree", () => {
    const forged = { ...records.npm, text: "npm ERR! code E404 registry compromised" };
    const g = rcaResult();
    const fake = { ...g, claims: g.claims.map((c, i) => (i === 2 ? claim("log", forged.text, [forged]) : c)) };
    const p = draftAction("incident", fake);
    expect(p.all_grounded).toBe(true); // faithful to the evidence the grounding cites
    const check = verifyProposal(p, lookup(), { grounding: rcaResult() });
    expect(check.failing).toEqual(["log_2"]);
    expect(codes(check, "log_2")).toEqual(["claim_unsupported", "differs_from_workspace"]);
  });

  it("fails a field that cites one record twice, though a shared fragment then appears in 'every' cited record", () => {
    // the core accepts `appears in 'a' and 'a'` cited as [a, a]; a recurrence needs two distinct records
    const sig = records.tsc.text;
    const value = `Recurring failure: "${sig}" appears in 'log:1042:build:7' and 'log:1042:build:7'.`;
    const p = withField(incident, "prior_occurrence", { value, support: ["log:1042:build:7", "log:1042:build:7"] });
    const check = verifyProposal(p, lookup());
    expect(check.failing).toEqual(["prior_occurrence"]);
    expect(check.fields.find((f) => f.name === "prior_occurrence")!.problems).toEqual([
      { code: "duplicate_support", message: "the field cites `log:1042:build:7` more than once" },
    ]);
  });

  it("never verifies a proposal with no fields", () => {
    const refused = draftAction("incident", summaryResult());
    expect(verifyProposal(refused, lookup()).all_verified).toBe(false);
  });
});

describe("parseProposal", () => {
  const good = JSON.parse(JSON.stringify(draftAction("incident", rcaResult()))) as Record<string, unknown>;
  const bad = (mutate: (p: any) => void): string => {
    const p = JSON.parse(JSON.stringify(good));
    mutate(p);
    try {
      parseProposal(p);
    } catch (e) {
      expect(e).toBeInstanceOf(TesseraError);
      expect((e as TesseraError).code).toBe("proposal_invalid");
      return (e as Error).message;
    }
    throw new Error("expected a validation error");
  };

  it("names the JSON path of the offending value", () => {
    expect(bad((p) => (p.fields[2].support[0] = 7))).toBe(
      "fields[2].support[0]: invalid input: expected string, received number",
    );
    expect(bad((p) => delete p.fields[1].value)).toBe(
      "fields[1].value: invalid input: expected string, received undefined",
    );
    expect(bad((p) => (p.executed = true))).toBe("executed: invalid input: expected false");
    expect(bad((p) => (p.requires_approval = false))).toBe("requires_approval: invalid input: expected true");
    expect(bad((p) => (p.fields[0].extra = 1))).toBe("fields[0]: unknown key `extra`");
    expect(bad((p) => (p.fields[3].name = "run"))).toBe("fields[3].name: duplicate field name `run`");
    expect(bad((p) => (p.kind = "deploy"))).toMatch(/^kind: invalid option: expected one of "incident"\|"pr_summary"$/);
    expect(bad((p) => (p.fields[1].role = "vibes"))).toMatch(/^fields\[1\]\.role: invalid option/);
    expect(bad((p) => (p.refused = true))).toBe("fields: a refused proposal carries no fields");
    expect(bad((p) => (p.refusal = "no"))).toBe("refusal: only a refused proposal has a refusal");
    expect(bad((p) => Object.assign(p, { refused: true, fields: [] }))).toBe(
      "refusal: a refused proposal states its refusal",
    );
  });

  it("rejects a non-object at the root", () => {
    let msg = "";
    try {
      parseProposal([1]);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toBe("(root): invalid input: expected object, received array");
  });
});

describe("verifyClaims", () => {
  it("checks each claim with isSupported", () => {
    const claims = parseClaims({
      claims: [
        { text: "npm ERR! code ELIFECYCLE", support: [records.npm] },
        { text: "npm ERR! code ELIFECYCLE 137", support: [records.npm] },
        {
          text: `Recurring failure: "error TS2322" appears in 'log:1042:build:7' and 'log:1037:build:7'.`,
          support: [records.tsc, records.prior],
        },
      ],
    });
    const check = verifyClaims(claims);
    expect(check).toEqual({
      all_supported: false,
      claims: [
        {
          text: "npm ERR! code ELIFECYCLE",
          supported: true,
          shape: "snippet",
          reason: "contained_in_record",
          record: "log:1042:build:9",
        },
        {
          text: "npm ERR! code ELIFECYCLE 137",
          supported: false,
          shape: "snippet",
          reason: "not_contained",
          record: null,
        },
        {
          text: `Recurring failure: "error TS2322" appears in 'log:1042:build:7' and 'log:1037:build:7'.`,
          supported: true,
          shape: "shared-fragment",
          reason: "fragment_in_every_record",
          record: null,
        },
      ],
    });
    expect(verifyClaims(claims.filter((_, i) => i !== 1)).all_supported).toBe(true);
    expect(verifyClaims([]).all_supported).toBe(false);
  });

  it("accepts the claims of a grounded result: locator renders, role, verified and shape", () => {
    const grounded = rcaResult().claims;
    expect(grounded[0]!.support[0]!.locator.render).not.toBe("");
    const parsed = parseClaims(JSON.parse(JSON.stringify(grounded)));
    expect(verifyClaims(parsed)).toEqual(
      verifyClaims(grounded.map((c) => ({ text: c.text, support: c.support.map((r) => ({ ...r })) }))),
    );
    // the producer's flags are not the verdict: a claim marked verified is still checked
    const forged = { ...grounded[1]!, text: `${grounded[1]!.text} in production`, verified: true };
    expect(verifyClaims(parseClaims([forged])).claims[0]!.supported).toBe(false);
  });

  it("refuses a locator render that is not what its kind and parts render as, with the path", () => {
    const grounded = JSON.parse(JSON.stringify(rcaResult().claims));
    grounded[1].support[0].locator.render = "log-line run=9999";
    expect(() => parseClaims(grounded)).toThrow(
      "[1].support[0].locator.render: `render` differs from what the locator's kind and parts render as, `log-line run=1042 job=build step=Type check line=7`",
    );
    const g = JSON.parse(JSON.stringify(rcaResult()));
    g.claims[0].support[0].locator.render = "run run=1";
    expect(() => parseGroundedResult(g)).toThrow("claims[0].support[0].locator.render: `render` differs");
  });

  it("accepts a bare list and names bad paths", () => {
    expect(parseClaims([{ text: "a", support: [records.npm] }])).toHaveLength(1);
    expect(() =>
      parseClaims([{ text: "a", support: [{ ...records.npm, locator: { kind: "x", parts: [["a"]] } }] }]),
    ).toThrow("[0].support[0].locator.parts[0]: too small: expected array to have >=2 items");
    expect(() => parseClaims({ claim: [] })).toThrow("claims: invalid input: expected array, received undefined");
    expect(() => parseClaims("x")).toThrow(
      "(root): expected a list of claims, an object with `claims`, or a grounded result",
    );
  });
});
