// The drafter over real workspaces on disk, through the evidence store and the answer paths: every
// failed run drafts an incident and every PR a pr_summary whose every field verifies, losslessly;
// the refusal arm; the CLI's `draft --workspace` and `verify --proposal`, across processes.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActionField,
  type ActionProposal,
  draftAction,
  parseProposal,
  verifyProposal,
} from "../../src/actions/index.js";
import { type GroundedResult, groundQuestion } from "../../src/answers/index.js";
import { contains } from "../../src/core/index.js";
import { FAILED_CONCLUSIONS, openWorkspace, type Workspace } from "../../src/evidence/index.js";
import { writeWorkspace } from "./workspace.js";

const CLI = resolve(__dirname, "../../dist/cli/main.js");
const EXAMPLE = resolve(__dirname, "../../examples/ci-workspace");
const tmp = mkdtempSync(join(tmpdir(), "tessera-actions-ws-"));
const small = join(tmp, "small");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => writeWorkspace(small));

function tessera(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every question the workspace can ground: each failed run for `incident`, each PR for `pr_summary`. */
function questions(ws: Workspace): { kind: "incident" | "pr_summary"; question: string }[] {
  const runs = ws.listRuns().filter((r) => FAILED_CONCLUSIONS.includes(r.conclusion) && ws.hasLog(r.id));
  const prs = ws.listPrs().map((p) => p.id.slice("pr:".length));
  return [
    ...runs.map((r) => ({ kind: "incident" as const, question: `why did run ${r.id} fail?` })),
    ...prs.map((n) => ({ kind: "pr_summary" as const, question: `summarize PR ${n}` })),
  ];
}

/** Every one-field mutation of a drafted proposal fails the approver's check on exactly that field. */
function mutationsFail(ws: Workspace, p: ActionProposal, g: GroundedResult): void {
  const lookup = (id: string) => ws.getRecord(id);
  const failing = (name: string, change: Partial<ActionField>) =>
    verifyProposal({ ...p, fields: p.fields.map((f) => (f.name === name ? { ...f, ...change } : f)) }, lookup, {
      grounding: g,
    }).failing;
  p.fields.forEach((f, i) => {
    expect(failing(f.name, { value: `${f.value} zqxv9` })).toEqual([f.name]);
    const other = p.fields[(i + 1) % p.fields.length]!;
    const foreign = other.support.find((id) => !f.support.includes(id));
    if (foreign !== undefined) {
      // the other field's record: a swapped id, and a value spliced from both records
      expect(failing(f.name, { support: [foreign] })).toEqual([f.name]);
      const spliced = `${f.value.split(" ").slice(-2).join(" ")} ${other.value.split(" ").slice(0, 2).join(" ")}`;
      const inOne = [...f.support, foreign].some((id) => contains(spliced, ws.getRecord(id)!.text));
      if (!inOne) expect(failing(f.name, { value: spliced, support: [f.support[0]!, foreign] })).toEqual([f.name]);
    }
  });
}

const workspaces = [
  ["a small workspace", small] as const,
  ...(existsSync(EXAMPLE) ? [["examples/ci-workspace", EXAMPLE] as const] : []),
];

for (const [label, dir] of workspaces) {
  describe(`every drafted field verifies over ${label}`, () => {
    it("every failed run → incident and every PR → pr_summary: all grounded, lossless, round-trips, re-verifies", async () => {
      const ws = await openWorkspace(dir);
      try {
        const qs = questions(ws);
        expect(qs.filter((q) => q.kind === "incident").length).toBeGreaterThan(1);
        expect(qs.filter((q) => q.kind === "pr_summary").length).toBeGreaterThan(1);
        for (const { kind, question } of qs) {
          const g = groundQuestion(ws, question);
          const p = draftAction(kind, g);
          expect([question, p.refused, p.all_grounded]).toEqual([question, false, true]);
          expect(p.fields.every((f) => f.verified)).toBe(true);
          expect(p.fields[0]!.name).toBe("title");
          g.claims.forEach((c, i) => {
            const f = p.fields[i + 1]!;
            expect([f.role, f.value, f.support, f.verified]).toEqual([
              c.role,
              c.text,
              c.support.map((s) => s.id),
              c.verified,
            ]);
          });
          const json = JSON.stringify(p);
          expect(JSON.stringify(parseProposal(JSON.parse(json)))).toBe(json);
          const check = verifyProposal(p, (id) => ws.getRecord(id), { grounding: groundQuestion(ws, question) });
          expect([question, check.all_verified, check.failing]).toEqual([question, true, []]);
          mutationsFail(ws, p, g);
        }
      } finally {
        ws.close();
      }
    });
  });
}

describe("determinism across processes", () => {
  // every proposal of the workspace, drafted by the built library in a fresh Node process
  const script = `
    import { draftAction } from ${JSON.stringify(resolve(__dirname, "../../dist/actions/index.js"))};
    import { groundQuestion } from ${JSON.stringify(resolve(__dirname, "../../dist/answers/index.js"))};
    import { FAILED_CONCLUSIONS, openWorkspace } from ${JSON.stringify(resolve(__dirname, "../../dist/evidence/index.js"))};
    const ws = await openWorkspace(process.argv[1]);
    const out = [];
    for (const r of ws.listRuns()) out.push(draftAction("incident", groundQuestion(ws, "why did run " + r.id + " fail?")));
    for (const p of ws.listPrs()) out.push(draftAction("pr_summary", groundQuestion(ws, "summarize PR " + p.id.slice(3))));
    ws.close();
    process.stdout.write(JSON.stringify(out));`;
  for (const [label, dir] of workspaces) {
    it(`every proposal over ${label} is byte-identical in two processes, and equals the in-process draft`, async () => {
      const run = () => spawnSync(process.execPath, ["--input-type=module", "-e", script, dir], { encoding: "utf8" });
      const a = run();
      const b = run();
      expect(a.status, a.stderr).toBe(0);
      expect(b.stdout).toBe(a.stdout);
      const ws = await openWorkspace(dir);
      try {
        const here = [
          ...ws.listRuns().map((r) => draftAction("incident", groundQuestion(ws, `why did run ${r.id} fail?`))),
          ...ws.listPrs().map((p) => draftAction("pr_summary", groundQuestion(ws, `summarize PR ${p.id.slice(3)}`))),
        ];
        expect(a.stdout).toBe(JSON.stringify(here));
      } finally {
        ws.close();
      }
    });
  }
});

describe("the refusal arm over a workspace", () => {
  const cases: [string, string, string, RegExp][] = [
    ["a passed run", "incident", "why did run 1050 fail?", /^run 1050 did not fail/],
    ["an unknown run", "incident", "why did run 9999 fail?", /^run 9999 is not in the workspace$/],
    ["an out-of-scope question", "incident", "what is the weather in Lisbon?", /^out of scope: /],
    [
      "incident of a PR question",
      "incident",
      "summarize PR 51",
      /^`incident` drafts from the `rca` route, but the question was routed to `summary`$/,
    ],
    [
      "pr_summary of a run question",
      "pr_summary",
      "why did run 1042 fail?",
      /^`pr_summary` drafts from the `summary` route, but the question was routed to `rca`$/,
    ],
    ["an unknown PR", "pr_summary", "summarize PR 404", /^PR 404 is not in the workspace$/],
  ];
  let ws: Workspace;
  beforeAll(async () => {
    ws = await openWorkspace(small);
  });
  afterAll(() => ws.close());
  for (const [label, kind, question, refusal] of cases) {
    it(`${label}: refused with no fields`, () => {
      const p = draftAction(kind, groundQuestion(ws, question));
      expect(p).toMatchObject({
        kind,
        question,
        grounded: false,
        refused: true,
        fields: [],
        all_grounded: false,
        requires_approval: true,
        executed: false,
      });
      expect(p.refusal).toMatch(refusal);
    });
  }

  it("the CLI prints the refusal and exits 1", () => {
    const r = tessera("draft", "incident", "--workspace", small, "why did run 1050 fail?");
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/\nrefused: run 1050 did not fail/);
  });
});

describe("tessera draft --workspace and verify --proposal", () => {
  const proposalFile = (name: string, p: unknown) => {
    const f = join(tmp, name);
    writeFileSync(f, JSON.stringify(p, null, 2));
    return f;
  };

  it("byte-identical JSON across processes, and the Markdown preview", () => {
    const a = tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--json");
    const b = tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--json");
    expect(a.code, a.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const md = tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--markdown");
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout.split("\n")[0]).toBe(
      "## Incident: src/cache.ts\\(12,5\\): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
  });

  it("an honest proposal verifies (exit 0); one field changed fails (exit 1, the field named)", () => {
    const drafted = JSON.parse(
      tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--json").stdout,
    );
    const ok = tessera("verify", "--proposal", proposalFile("ok.json", drafted), "--workspace", small, "--json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ all_verified: true, compared_with_workspace: true, failing: [] });

    const field = (p: any, name: string) => p.fields.find((f: { name: string }) => f.name === name);
    const mutations: [string, (p: any) => void, string][] = [
      ["appended token", (p) => (field(p, "log_3").value += " on arm64"), "log_3"],
      [
        "spliced",
        (p) =>
          Object.assign(field(p, "log_3"), {
            value: "npm ERR! code ELIFECYCLE error TS2345",
            support: ["log:1042:7", "log:1042:6"],
          }),
        "log_3",
      ],
      ["swapped to a record without the value", (p) => (field(p, "log_2").support = ["log:1042:7"]), "log_2"],
      [
        "swapped to the earlier run's identical line",
        (p) => (field(p, "failure_signature").support = ["log:1037:4"]),
        "failure_signature",
      ],
      ["an unknown record", (p) => (field(p, "run").support = ["run:1"]), "run"],
      ["a title with a word added", (p) => (field(p, "title").value = `Urgent: ${field(p, "title").value}`), "title"],
    ];
    for (const [label, mutate, name] of mutations) {
      const p = structuredClone(drafted);
      mutate(p);
      const r = tessera("verify", "--proposal", proposalFile(`${name}.json`, p), "--workspace", small, "--json");
      expect(r.code, label).toBe(1);
      expect(JSON.parse(r.stdout).failing, label).toEqual([name]);
      if (name === "title") {
        const human = tessera("verify", "--proposal", proposalFile(`${name}.json`, p), "--workspace", small);
        expect(human.stdout).toMatch(
          /\ntitle\s+NO\s+claim_unsupported: the value is not contained in any single cited record\n/,
        );
        expect(human.stdout).toContain(`1 of ${drafted.fields.length} fields failed: title`);
      }
    }
  });

  it("a proposal whose evidence changed since drafting fails", () => {
    const dir = join(tmp, "changing");
    writeWorkspace(dir);
    const drafted = tessera("draft", "pr_summary", "--workspace", dir, "summarize PR 51", "--json").stdout;
    const f = proposalFile("pr51.json", JSON.parse(drafted));
    expect(tessera("verify", "--proposal", f, "--workspace", dir).code).toBe(0);
    const pr = JSON.parse(readFileSync(join(dir, "prs/51.json"), "utf8"));
    writeFileSync(join(dir, "prs/51.json"), JSON.stringify({ ...pr, title: "Fix cache key types" }));
    appendFileSync(join(dir, "prs/51.diff"), "");
    const r = tessera("verify", "--proposal", f, "--workspace", dir, "--json");
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout).failing).toEqual(["title", "pull_request"]);
  });

  it("a proposal with fields dropped fails (exit 1, each missing field named) unless --allow-partial", () => {
    const drafted = JSON.parse(
      tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--json").stdout,
    );
    const kept = drafted.fields.slice(0, 2);
    const dropped = drafted.fields.slice(2).map((f: { name: string }) => f.name);
    expect(dropped.length).toBeGreaterThanOrEqual(5);
    const f = proposalFile("partial.json", { ...drafted, fields: kept });
    const json = tessera("verify", "--proposal", f, "--workspace", small, "--json");
    expect(json.code, json.stderr).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ all_verified: false, failing: [], omitted: dropped });
    const human = tessera("verify", "--proposal", f, "--workspace", small);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`not verified: ${dropped.length} fields missing: ${dropped.join(", ")}\n`);
    const partial = tessera("verify", "--proposal", f, "--workspace", small, "--allow-partial");
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stdout).toContain(
      `the workspace draft also has: ${dropped.join(", ")} (left out, allowed by --allow-partial)`,
    );
    expect(tessera("verify", "--claims", f, "--allow-partial").stderr).toBe(
      "tessera verify: `--allow-partial` is for `--proposal`\n",
    );
  });

  it("a proposal whose route, domain or all_grounded was edited fails (exit 1, the part named)", () => {
    const drafted = JSON.parse(
      tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--json").stdout,
    );
    for (const [name, change] of [
      ["route.reason", { route: { ...drafted.route, reason: "names run 1042; rollback approved" } }],
      ["domain", { domain: "prod" }],
      ["all_grounded", { all_grounded: false }],
    ] as const) {
      const r = tessera(
        "verify",
        "--proposal",
        proposalFile(`part-${name}.json`, { ...drafted, ...change }),
        "--workspace",
        small,
      );
      expect(r.code, name).toBe(1);
      expect(r.stdout, name).toContain(`not verified: ${name} differs from the workspace draft\n`);
    }
  });

  it("exit 2 with the JSON path for a malformed proposal", () => {
    const drafted = JSON.parse(
      tessera("draft", "incident", "--workspace", small, "why did run 1042 fail?", "--json").stdout,
    );
    const f = proposalFile("bad.json", { ...drafted, executed: true });
    const r = tessera("verify", "--proposal", f, "--workspace", small);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`tessera verify: \`${f}\`: executed: invalid input: expected false\n`);
  });
});
