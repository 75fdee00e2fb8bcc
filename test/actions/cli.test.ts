// `tessera actions`, `tessera draft --grounding` and `tessera verify --claims`, as a user runs them:
// the built CLI in its own process (run `npm run build` first).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { draftAction, listActions, renderMarkdown } from "../../src/actions/index.js";
import { rcaResult, records, summaryResult } from "./fixtures.js";

const CLI = resolve(__dirname, "../../dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "tessera-actions-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === "string" ? content : JSON.stringify(content));
  return p;
}

function tessera(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("tessera actions", () => {
  it("--json prints the catalog", () => {
    const r = tessera("actions", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ actions: listActions() });
  });

  it("prints a table by default", () => {
    const r = tessera("actions");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^kind\s+routes\s+domains/);
    expect(r.stdout).toMatch(/\nincident\s+rca\s+ci\s+failure_signature/);
    expect(r.stdout).toContain("Tessera never executes them");
  });
});

describe("tessera draft --grounding", () => {
  const rca = file("rca.json", rcaResult());
  const summary = file("summary.json", summaryResult());

  it("--json prints exactly the proposal, byte-identical across processes; exit 0 when all grounded", () => {
    const a = tessera("draft", "incident", "--grounding", rca, "--json");
    const b = tessera("draft", "incident", "--grounding", rca, "--json");
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe(`${JSON.stringify(draftAction("incident", rcaResult()), null, 2)}\n`);
    expect(b.stdout).toBe(a.stdout);
  });

  it("--markdown prints the Markdown preview", () => {
    const r = tessera("draft", "pr_summary", "--grounding", summary, "--markdown");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(renderMarkdown(draftAction("pr_summary", summaryResult())));
  });

  it("--issue prints the verified title and the issue body", () => {
    const r = tessera("draft", "pr_summary", "--grounding", summary, "--issue");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("Fix cache key typing");
    expect(r.stdout).toContain("nothing was executed");
  });

  it("a table by default, with every field and the verdict", () => {
    const r = tessera("draft", "incident", "--grounding", rca);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("proposal only: requires approval, nothing was executed");
    expect(r.stdout).toMatch(/\nlog_2\s+log\s+yes\s+npm ERR! code ELIFECYCLE\s+log:1042:build:9\n/);
    expect(r.stdout).toContain("all grounded: 8 of 8 fields verified");
  });

  it("exit 1 for a refusal, with the refusal carried", () => {
    const r = tessera("draft", "incident", "--grounding", summary, "--json");
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ refused: true, fields: [], all_grounded: false });
    const t = tessera("draft", "pr_summary", "--grounding", rca);
    expect(t.code, t.stderr).toBe(1);
    expect(t.stdout).toContain(
      "refused: `pr_summary` drafts from the `summary` route, but the question was routed to `rca`",
    );
  });

  it("exit 1 when a field does not verify", () => {
    const g = rcaResult();
    const bad = { ...g, claims: g.claims.map((c, i) => (i === 2 ? { ...c, text: `${c.text} 137` } : c)) };
    const r = tessera("draft", "incident", "--grounding", file("bad.json", bad), "--json");
    expect(r.code, r.stderr).toBe(1);
    const p = JSON.parse(r.stdout);
    expect(p.all_grounded).toBe(false);
    expect(p.fields.filter((f: { verified: boolean }) => !f.verified).map((f: { name: string }) => f.name)).toEqual([
      "log_2",
    ]);
  });

  it("exit 2 with one precise line for bad input", () => {
    const cases: [string[], string][] = [
      [
        ["draft", "deploy", "--grounding", rca],
        "tessera draft: unknown action `deploy` (known: `incident`, `pr_summary`)\n",
      ],
      // the kind is checked before the workspace is opened (or ingested)
      [
        ["draft", "deploy", "--workspace", join(dir, "no-such-workspace"), "why did run 1042 fail?"],
        "tessera draft: unknown action `deploy` (known: `incident`, `pr_summary`)\n",
      ],
      [
        ["draft", "incident", "--grounding", file("broken.json", "{")],
        `tessera draft: \`${join(dir, "broken.json")}\`: invalid json: `,
      ],
      [
        ["draft", "incident", "--grounding", file("shape.json", { ...rcaResult(), claims: [{ role: "run" }] })],
        `tessera draft: \`${join(dir, "shape.json")}\`: claims[0].text: invalid input: expected string, received undefined\n`,
      ],
      [["draft", "incident", "--grounding", join(dir, "nope.json")], "no such file"],
      [["draft", "incident", "why?"], "tessera draft: missing required option `--workspace` (or `--grounding`)\n"],
      [["draft", "--grounding", rca], "tessera draft: missing the action kind"],
      [["draft", "incident", "--grounding", rca, "--json", "--markdown"], "choose one of"],
    ];
    for (const [args, message] of cases) {
      const r = tessera(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(message);
      expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    }
  });
});

describe("tessera verify --claims", () => {
  const supported = [{ text: "npm ERR! code ELIFECYCLE", support: [records.npm] }];
  it("exit 0 when every claim is supported, 1 otherwise, with the verdict per claim", () => {
    const ok = tessera("verify", "--claims", file("ok.json", supported), "--json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      all_supported: true,
      claims: [
        {
          text: "npm ERR! code ELIFECYCLE",
          supported: true,
          shape: "snippet",
          reason: "contained_in_record",
          record: "log:1042:build:9",
        },
      ],
    });
    const spliced = [...supported, { text: "ELIFECYCLE error TS2322", support: [records.npm, records.tsc] }];
    const bad = tessera("verify", "--claims", file("bad-claims.json", { claims: spliced }));
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toMatch(/\n1\s+NO\s+snippet\s+not_contained\s+ELIFECYCLE error TS2322\n/);
    expect(bad.stdout).toContain("not supported: 1 of 2 claims supported");
  });

  it("takes the whole result `tessera ground --json` prints, and checks only its claims", () => {
    const g = rcaResult();
    const ok = tessera("verify", "--claims", file("grounding.json", g), "--json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).claims).toHaveLength(g.claims.length);
    // the result's own verdict is never trusted: a spliced claim fails though `all_verified` says true
    const spliced = { ...g, claims: g.claims.map((c, i) => (i === 0 ? { ...c, text: `${c.text} 137` } : c)) };
    expect(tessera("verify", "--claims", file("grounding-spliced.json", spliced)).code).toBe(1);
    const typo = tessera("verify", "--claims", file("grounding-typo.json", { ...g, routee: g.route }));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("routee");
  });

  it("exit 2 for malformed claims, naming the path", () => {
    const r = tessera("verify", "--claims", file("malformed.json", [{ text: "x", support: [{ id: "a" }] }]));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `tessera verify: \`${join(dir, "malformed.json")}\`: [0].support[0].source: invalid input: expected string, received undefined\n`,
    );
  });

  it("exit 2 for a duplicate JSON key, which another parser could read the other way", () => {
    const honest = JSON.stringify(draftAction("incident", rcaResult()));
    // JSON.parse keeps the last `executed`; a first-wins reader would see `true`
    const forged = file("dup-key.json", honest.replace('"executed":false', '"executed":true,"executed":false'));
    const r = tessera("verify", "--proposal", forged, "--workspace", dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`tessera verify: \`${forged}\`: (root): duplicate key \`executed\`\n`);
    const claims = file("dup-claims.json", '[{"text":"a","text":"npm ERR! code ELIFECYCLE","support":[]}]');
    const empty = file("empty.json", "");
    expect(tessera("verify", "--claims", empty).stderr).toBe(
      `tessera verify: \`${empty}\`: invalid json: unexpected end of JSON input\n`,
    );
    expect(tessera("verify", "--claims", claims).stderr).toBe(
      `tessera verify: \`${claims}\`: [0]: duplicate key \`text\`\n`,
    );
    const g = file(
      "dup-grounding.json",
      JSON.stringify(rcaResult()).replace('"claims":[{', '"claims":[{"role":"log",'),
    );
    expect(tessera("draft", "incident", "--grounding", g).stderr).toBe(
      `tessera draft: \`${g}\`: claims[0]: duplicate key \`role\`\n`,
    );
  });

  it("exit 2 for a proposal without a workspace, or both modes at once", () => {
    expect(tessera("verify", "--proposal", "p.json").stderr).toBe(
      "tessera verify: missing required option `--workspace`\n",
    );
    expect(tessera("verify", "--proposal", "p.json", "--claims", "c.json").code).toBe(2);
  });
});

describe("a fresh `ground --json` result, with its signature score, as the input of draft and verify", () => {
  const ws = resolve(__dirname, "../../examples/ci-workspace");
  const question = "why did run 7015 fail?";
  const ground = tessera("ground", "--workspace", ws, question, "--json");
  const saved = file("ground-7015.json", ground.stdout);

  it("carries the signature's rule, score and reasons, the score their sum", () => {
    expect(ground.code, ground.stderr).toBe(0);
    const g = JSON.parse(ground.stdout);
    const sig = g.claims.find((c: { role: string }) => c.role === "failure_signature");
    expect(g.signature.id).toBe(sig.support[0].id);
    expect({ rule: g.signature.rule, basis: g.signature.basis }).toEqual({ rule: "go-race", basis: "top_score" });
    expect(g.signature.score).toBe(g.signature.reasons.reduce((a: number, r: { points: number }) => a + r.points, 0));
  });

  it("draft --grounding reads it and drafts what draft --workspace drafts", () => {
    const a = tessera("draft", "incident", "--grounding", saved, "--json");
    expect(a.code, a.stderr).toBe(0);
    const b = tessera("draft", "incident", "--workspace", ws, question, "--json");
    expect(a.stdout).toBe(b.stdout);
  });

  it("verify --claims reads it", () => {
    const r = tessera("verify", "--claims", saved, "--json");
    expect(r.code, r.stderr).toBe(0);
  });

  it("a malformed signature score is refused with its path", () => {
    const g = JSON.parse(ground.stdout);
    const bad = file("ground-bad-score.json", { ...g, signature: { ...g.signature, score: "85" } });
    const r = tessera("draft", "incident", "--grounding", bad, "--json");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("signature.score");
  });
});
