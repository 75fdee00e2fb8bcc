import { describe, expect, it } from "vitest";
import { draftAction, listActions, parseProposal } from "../../src/actions/index.js";
import type { GroundedResult } from "../../src/answers/types.js";
import { TesseraError } from "../../src/platform/errors.js";
import { claim, rcaResult, rec, records, refusedResult, result, SIGNATURE, summaryResult } from "./fixtures.js";

describe("catalog", () => {
  it("lists incident and pr_summary with their routes, domains and roles", () => {
    const kinds = listActions().map((a) => [a.kind, a.routes, a.domains, a.title_from]);
    expect(kinds).toEqual([
      ["incident", ["rca"], ["ci"], "failure_signature"],
      ["pr_summary", ["summary"], ["ci"], "pull_request"],
    ]);
    for (const a of listActions())
      expect(Object.keys(a)).toEqual(["kind", "description", "routes", "domains", "title_from", "roles"]);
  });

  it("hands out copies, so a caller cannot change the catalog", () => {
    const a = listActions();
    (a[0]!.routes as string[]).push("summary");
    expect(listActions()[0]!.routes).toEqual(["rca"]);
  });
});

describe("draftAction: incident", () => {
  const p = draftAction("incident", rcaResult());

  it("keeps the contract key order", () => {
    expect(Object.keys(p)).toEqual([
      "kind",
      "domain",
      "question",
      "route",
      "grounded",
      "refused",
      "refusal",
      "fields",
      "all_grounded",
      "requires_approval",
      "executed",
    ]);
    for (const f of p.fields) expect(Object.keys(f)).toEqual(["name", "role", "value", "verified", "support"]);
  });

  it("lifts the title from the failure signature's log line, then one field per claim named by role", () => {
    expect(p.fields.map((f) => f.name)).toEqual([
      "title",
      "run",
      "log_1",
      "log_2",
      "failure_signature",
      "prior_occurrence",
      "documented_incident",
      "resolving_change",
    ]);
    expect(p.fields[0]).toEqual({
      name: "title",
      role: "failure_signature",
      value: SIGNATURE,
      verified: true,
      support: ["log:1042:build:7"],
    });
    expect(p.fields.every((f) => f.verified)).toBe(true);
    expect(p.all_grounded).toBe(true);
    expect(p.requires_approval).toBe(true);
    expect(p.executed).toBe(false);
    expect(p.refused).toBe(false);
    expect(p.route).toEqual({ kind: "rca", reason: "names run 1042" });
  });

  it("lifts the whole line when the signature claim is a fragment of a longer log line", () => {
    const line = "2026-01-01 build failed: error TS2322: Type 'string' is not assignable to type 'number'.";
    const log = { ...records.tsc, id: "log:x", text: `first line\n${line}\nlast line` };
    const r = result("rca", "run 1042", [claim("failure_signature", "error TS2322", [log])]);
    const t = draftAction("incident", r).fields[0]!;
    expect(t).toMatchObject({ name: "title", value: line, verified: true, support: ["log:x"] });
  });
});

describe("draftAction: pr_summary", () => {
  const p = draftAction("pr_summary", summaryResult());

  it("takes the PR's own title and numbers repeated roles", () => {
    expect(p.fields.map((f) => f.name)).toEqual([
      "title",
      "pull_request",
      "code_change_1",
      "code_change_2",
      "motivating_ticket",
      "ticket",
    ]);
    expect(p.fields[0]).toEqual({
      name: "title",
      role: "pull_request",
      value: "Fix cache key typing",
      verified: true,
      support: ["pr:51"],
    });
    expect(p.all_grounded).toBe(true);
  });
});

describe("draftAction: pr_summary of a commit", () => {
  it("takes the commit's subject as the title", () => {
    const commit = rec(
      "commit:1a2b3c4d",
      "commit",
      [["commit", "1a2b3c4d"]],
      "commit 1a2b3c4d: Round totals half-even\n\nBody text.",
    );
    const p = draftAction(
      "pr_summary",
      result("summary", "summarize commit 1a2b3c4", [
        claim("pull_request", "commit 1a2b3c4d: Round totals half-even", [commit]),
      ]),
    );
    expect(p.fields[0]).toEqual({
      name: "title",
      role: "pull_request",
      value: "Round totals half-even",
      verified: true,
      support: ["commit:1a2b3c4d"],
    });
    expect(p.all_grounded).toBe(true);
  });

  it("an empty PR title is lifted as empty and does not verify", () => {
    const pr = rec("pr:9", "pr", [["pr", "9"]], "PR 9: \nauthor: x");
    const p = draftAction("pr_summary", result("summary", "summarize PR 9", [claim("pull_request", "PR 9:", [pr])]));
    expect(p.fields[0]).toMatchObject({ name: "title", value: "", verified: false });
    expect(p.all_grounded).toBe(false);
  });
});

describe("lossless projection", () => {
  for (const [kind, r] of [
    ["incident", rcaResult()],
    ["pr_summary", summaryResult()],
  ] as const) {
    it(`every ${kind} field after the title is its claim's text, support ids and verdict`, () => {
      const p = draftAction(kind, r);
      expect(p.fields.length).toBe(r.claims.length + 1);
      r.claims.forEach((c, i) => {
        const f = p.fields[i + 1]!;
        expect(f.role).toBe(c.role);
        expect(f.value).toBe(c.text);
        expect(f.support).toEqual(c.support.map((s) => s.id));
        expect(f.verified).toBe(c.verified);
      });
    });

    it(`a ${kind} proposal survives a JSON round trip and validates`, () => {
      const p = draftAction(kind, r);
      const back = JSON.parse(JSON.stringify(p)) as unknown;
      expect(back).toEqual(p);
      expect(JSON.stringify(parseProposal(back))).toBe(JSON.stringify(p));
    });
  }
});

describe("verified is recomputed at the boundary", () => {
  it("does not trust a claim marked verified whose text is not in its record", () => {
    const bad = {
      ...claim("log", "npm ERR! code ELIFECYCLE", [records.npm]),
      text: "npm ERR! code ELIFECYCLE errno 137",
    };
    expect(bad.verified).toBe(true);
    const r = { ...rcaResult(), claims: [...rcaResult().claims.slice(0, 3), bad, ...rcaResult().claims.slice(3)] };
    const p = draftAction("incident", r);
    const f = p.fields.find((x) => x.value === bad.text)!;
    expect(f.verified).toBe(false);
    expect(p.all_grounded).toBe(false);
  });

  it("does not trust a support ref whose text was changed after grounding", () => {
    const r = rcaResult();
    const run = r.claims[0]!;
    const tampered = { ...run, support: [{ ...run.support[0]!, text: "CI run 1042 passed" }] };
    const p = draftAction("incident", { ...r, claims: [tampered, ...r.claims.slice(1)] });
    expect(p.fields[1]!.verified).toBe(false);
    expect(p.all_grounded).toBe(false);
  });

  it("refuses when the signature claim cites no record that holds it: there is no verbatim title to lift", () => {
    const sig = {
      ...claim("failure_signature", SIGNATURE, [records.tsc]),
      support: claim("log", "x", [records.npm]).support,
    };
    const r = result("rca", "run 1042", [sig]);
    const p = draftAction("incident", r);
    expect(p.refused).toBe(true);
    expect(p.refusal).toBe("the `failure_signature` claim cites no record holding it");
  });
});

/** A result as the answer paths give it when one claim fails `isSupported`: not grounded. */
function withUnsupported(): GroundedResult {
  const r = rcaResult();
  const claims = r.claims.map((c, i) => (i === 2 ? claim("log", "npm ERR! code E404", [records.npm]) : c));
  expect(claims[2]!.verified).toBe(false);
  return { ...r, claims, grounded: false, all_verified: false };
}

describe("refusals are carried with no fields", () => {
  const cases: [string, string, GroundedResult, string][] = [
    [
      "a refused grounding",
      "incident",
      refusedResult("why did run 1050 fail?", "run 1050 did not fail (conclusion success)"),
      "run 1050 did not fail (conclusion success)",
    ],
    [
      "incident of a PR question",
      "incident",
      summaryResult(),
      "`incident` drafts from the `rca` route, but the question was routed to `summary`",
    ],
    [
      "pr_summary of a run question",
      "pr_summary",
      rcaResult(),
      "`pr_summary` drafts from the `summary` route, but the question was routed to `rca`",
    ],
    [
      "a domain not served",
      "incident",
      { ...rcaResult(), domain: "billing" },
      "`incident` does not serve the `billing` domain",
    ],
    [
      "an ungrounded result",
      "incident",
      { ...rcaResult(), grounded: false },
      "the question was not grounded (7 of 7 claims verified)",
    ],
    [
      "a result with an unsupported claim",
      "incident",
      withUnsupported(),
      "the question was not grounded (6 of 7 claims verified)",
    ],
    [
      "no signature to title from",
      "incident",
      result("rca", "run 1042", [claim("run", records.run.text, [records.run])]),
      "no `failure_signature` claim to lift the `incident` title from",
    ],
  ];
  for (const [label, kind, r, refusal] of cases) {
    it(label, () => {
      const p = draftAction(kind, r);
      expect(p).toEqual({
        kind,
        domain: r.domain,
        question: r.question,
        route: { kind: r.route.kind, reason: r.route.reason },
        grounded: false,
        refused: true,
        refusal,
        fields: [],
        all_grounded: false,
        requires_approval: true,
        executed: false,
      });
    });
  }

  it("an unknown kind is an error, not a refusal", () => {
    let err: unknown;
    try {
      draftAction("deploy", rcaResult());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TesseraError);
    expect((err as TesseraError).code).toBe("unknown_action");
    expect((err as TesseraError).message).toBe("unknown action `deploy` (known: `incident`, `pr_summary`)");
  });
});
