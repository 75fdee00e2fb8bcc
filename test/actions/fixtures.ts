// Hand-built evidence and GroundedResults, made the way an answer path makes them: each claim's
// `verified` and `shape` come from the core `isSupported` over the records it cites.
import type { ClaimRole, GroundedClaim, GroundedResult, RouteKind } from "../../src/answers/types.js";
import { type EvidenceRecord, isSupported, renderLocator } from "../../src/core/index.js";

export function rec(
  id: string,
  kind: string,
  parts: [string, string][],
  text: string,
  source = "fixture",
): EvidenceRecord {
  return { id, source, locator: { kind, parts }, text };
}

export function claim(role: ClaimRole, text: string, support: readonly EvidenceRecord[]): GroundedClaim {
  const r = isSupported({ text, support });
  return {
    role,
    text,
    verified: r.supported,
    shape: r.shape,
    support: support.map((s) => ({
      id: s.id,
      source: s.source,
      locator: { kind: s.locator.kind, parts: s.locator.parts, render: renderLocator(s.locator) },
      text: s.text,
    })),
  };
}

export function result(
  route: RouteKind,
  question: string,
  claims: readonly GroundedClaim[],
  domain = "ci",
): GroundedResult {
  return {
    domain,
    question,
    route: { kind: route, reason: route === "rca" ? "names run 1042" : "names PR 51" },
    grounded: true,
    refused: false,
    refusal: null,
    claims,
    all_verified: claims.length > 0 && claims.every((c) => c.verified),
  };
}

export function refusedResult(question: string, refusal: string): GroundedResult {
  return {
    domain: "ci",
    question,
    route: { kind: "none", reason: "refused" },
    grounded: false,
    refused: true,
    refusal,
    claims: [],
    all_verified: false,
  };
}

const SIG = "src/cache.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.";

export const records = {
  run: rec(
    "run:1042",
    "run",
    [["run", "1042"]],
    'CI run 1042 "build" on main at 9f3c2e1: conclusion failure',
    "runs/1042.json",
  ),
  tsc: rec(
    "log:1042:build:7",
    "log-line",
    [
      ["run", "1042"],
      ["job", "build"],
      ["step", "Type check"],
      ["line", "7"],
    ],
    SIG,
    "logs/1042.log",
  ),
  npm: rec(
    "log:1042:build:9",
    "log-line",
    [
      ["run", "1042"],
      ["job", "build"],
      ["step", "Type check"],
      ["line", "9"],
    ],
    "npm ERR! code ELIFECYCLE",
    "logs/1042.log",
  ),
  prior: rec(
    "log:1037:build:7",
    "log-line",
    [
      ["run", "1037"],
      ["job", "build"],
      ["step", "Type check"],
      ["line", "7"],
    ],
    SIG,
    "logs/1037.log",
  ),
  ticket: rec(
    "ticket:INC-7",
    "ticket",
    [["ticket", "INC-7"]],
    "INC-7 Cache build breaks\n\nBuilds fail with error TS2322: Type 'string' is not assignable to type 'number'. in src/cache.ts",
    "tickets/INC-7.json",
  ),
  pr: rec(
    "pr:51",
    "pr",
    [["pr", "51"]],
    "PR 51: Fix cache key typing\n\nThe cache key was a string. Fixes INC-7.\nauthor: dana · state: MERGED",
    "prs/51.json",
  ),
  hunkA: rec(
    "hunk:51:src/cache.ts:1",
    "diff-hunk",
    [
      ["pr", "51"],
      ["file", "src/cache.ts"],
      ["hunk", "@@ -10,7 +10,7 @@"],
    ],
    "src/cache.ts @@ -10,7 +10,7 @@\n-  const key: number = id;\n+  const key: number = Number(id);",
    "prs/51.diff",
  ),
  hunkB: rec(
    "hunk:51:test/cache.test.ts:1",
    "diff-hunk",
    [
      ["pr", "51"],
      ["file", "test/cache.test.ts"],
      ["hunk", "@@ -1,3 +1,4 @@"],
    ],
    "test/cache.test.ts @@ -1,3 +1,4 @@\n+import { key } from '../src/cache';",
    "prs/51.diff",
  ),
};

export const SIGNATURE = SIG;

/** What root-cause analysis of failed run 1042 gives. */
export function rcaResult(): GroundedResult {
  const r = records;
  return result("rca", "why did run 1042 fail?", [
    claim("run", r.run.text, [r.run]),
    claim("log", r.tsc.text, [r.tsc]),
    claim("log", r.npm.text, [r.npm]),
    claim("failure_signature", r.tsc.text, [r.tsc]),
    claim("prior_occurrence", `Recurring failure: "${SIG}" appears in 'log:1042:build:7' and 'log:1037:build:7'.`, [
      r.tsc,
      r.prior,
    ]),
    claim("documented_incident", "INC-7 Cache build breaks", [r.ticket]),
    claim("resolving_change", "PR 51: Fix cache key typing", [r.pr]),
  ]);
}

/** What the change summary of PR 51 gives. */
export function summaryResult(): GroundedResult {
  const r = records;
  return result("summary", "summarize PR 51", [
    claim("pull_request", "PR 51: Fix cache key typing", [r.pr]),
    claim("code_change", r.hunkA.text, [r.hunkA]),
    claim("code_change", r.hunkB.text, [r.hunkB]),
    claim("motivating_ticket", `Motivating ticket: "INC-7" appears in 'pr:51' and 'ticket:INC-7'.`, [r.pr, r.ticket]),
    claim("ticket", "INC-7 Cache build breaks", [r.ticket]),
  ]);
}

/** Every record above, by id, as a workspace lookup. */
export function lookup(extra: readonly EvidenceRecord[] = []): (id: string) => EvidenceRecord | undefined {
  const byId = new Map([...Object.values(records), ...extra].map((x) => [x.id, x] as const));
  return (id) => byId.get(id);
}
