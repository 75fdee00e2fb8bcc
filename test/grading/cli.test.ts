import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

// Runs the built CLI (`npm run build` first; `npm test` builds).
const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist/cli/main.js");
const FIXTURES = join(ROOT, "test/fixtures/evaluators");
let dir = "";

function tessera(args: string[], stdin?: string) {
  const r = spawnSync(process.execPath, [CLI, "grade", ...args], {
    cwd: dir,
    input: stdin ?? "",
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const HR = {
  id: "hr-home-office",
  revision: "2026-04",
  title: "Home Office Policy",
  text: "A chair may be reimbursed up to USD 500 with manager approval.",
};
const EXEC = {
  id: "exec-furniture",
  revision: "2026-03",
  text: "Executives may claim up to USD 2000 for office furniture.",
};
const input = (extra: Record<string, unknown> = {}) => ({
  request_id: "req-1",
  query: "How much for a chair?",
  answer: "A chair may be reimbursed up to USD 500 [hr-home-office].",
  evidence: [HR],
  ...extra,
});
const write = (name: string, value: unknown) => {
  writeFileSync(join(dir, name), typeof value === "string" ? value : JSON.stringify(value));
  return name;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tessera-grade-"));
});

describe("tessera grade", () => {
  it("exits 0 for supported and prints exactly the contract JSON with --json", () => {
    const r = tessera(["--input", write("ok.json", input()), "--json"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `${JSON.stringify({ state: "supported", score: 1, threshold: 1, reason: "support_rule_passed", evidence_ids: ["hr-home-office"], evaluator: { name: "builtin", version: "1" }, delivery: "deliver" }, null, 2)}\n`,
    );
    expect(r.stderr).toBe("");
  });

  it("prints a readable table by default", () => {
    const r = tessera(["--input", write("ok2.json", input())]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^field\s+value\nstate\s+supported\nreason\s+support_rule_passed\n/);
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("prints ids and versions from the input with control characters escaped", () => {
    const evil = { ...HR, id: "hr\u001b[8m" };
    const r = tessera([
      "--input",
      write(
        "esc.json",
        input({
          answer: "A chair may be reimbursed up to USD 500.",
          evidence: [evil],
          evaluator: { name: "bedrock", version: "9\u001b]0;x\u0007" },
        }),
      ),
    ]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("evidence   hr\\u001b[8m\n");
    expect(r.stdout).toContain("evaluator  bedrock 9\\u001b]0;x\\u0007\n");
    expect(r.stdout).not.toContain("\u001b");
  });

  it("exits 1 for unsupported", () => {
    const r = tessera([
      "--input",
      write("bad.json", input({ answer: "A chair may be reimbursed up to USD 800." })),
      "--json",
    ]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: "unsupported", delivery: "withhold" });
  });

  it("exits 4 for unavailable, and reads the input from stdin with `-`", () => {
    const r = tessera(["--input", "-", "--evaluator", "bedrock", "--json"], JSON.stringify(input({ timed_out: true })));
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({
      state: "unavailable",
      reason: "evaluator_timeout",
      evaluator: { name: "bedrock", version: "2023-09-30" },
    });
  });

  it("adapts a saved provider response", () => {
    const result = JSON.parse(readFileSync(join(FIXTURES, "azure/2024-02-15-preview/incomplete.json"), "utf8"));
    const r = tessera(["--input", write("azure.json", input({ evaluator: { name: "azure" }, result })), "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: "unsupported", score: 0.59, threshold: 1 });
  });

  it("exits 2 with the JSON path of a bad value, no stack trace", () => {
    const r = tessera(["--input", write("invalid.json", input({ evidence: [{ id: "a", revision: 3, text: "x" }] }))]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "tessera grade: input.evidence[0].revision: invalid input: expected string, received number\n",
    );
  });

  it("exits 2 for unparsable input, an unknown key, a missing --input and an unknown evaluator", () => {
    expect(tessera(["--input", write("broken.json", "{ not json")]).stderr).toMatch(
      /^tessera grade: cannot parse input `broken\.json`: /,
    );
    expect(tessera(["--input", write("empty.json", "")]).stderr).toBe(
      "tessera grade: cannot parse input `empty.json`: unexpected end of JSON input\n",
    );
    expect(tessera(["--input", write("extra.json", input({ principal: "alice" }))]).stderr).toBe(
      "tessera grade: input: unrecognized key: `principal`\n",
    );
    const missing = tessera([]);
    expect([missing.code, missing.stderr]).toEqual([2, "tessera grade: missing required option `--input`\n"]);
    const unknown = tessera(["--input", "ok.json", "--evaluator", "gpt"]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      "tessera grade: `--evaluator` expects one of `builtin`, `bedrock`, `azure`, `generic`, got `gpt`\n",
    ]);
    expect(tessera(["--input", "nope.json"]).code).toBe(2);
    // one stdin cannot be read twice: the second read would be empty, not the acl
    const both = tessera(["--input", "-", "--acl", "-"], JSON.stringify(input()));
    expect([both.code, both.stderr]).toEqual([
      2,
      "tessera grade: `--input` and `--acl` cannot both read stdin (`-`)\n",
    ]);
  });

  it("exits 2 for two documents with one id and revision but different text (which is that revision?)", () => {
    const twin = { ...HR, text: "A chair may be reimbursed up to USD 5000." };
    const r = tessera(["--input", write("twin.json", input({ answer: twin.text, evidence: [HR, twin] })), "--json"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      "tessera grade: input.evidence[1]: document `hr-home-office` revision `2026-04` is given twice with different text\n",
    ]);
    // the same document twice is harmless, and another revision of it is a different document
    expect(tessera(["--input", write("same.json", input({ evidence: [HR, HR] }))]).code).toBe(0);
    expect(
      tessera(["--input", write("rev.json", input({ evidence: [HR, { ...twin, revision: "2026-05" }] }))]).code,
    ).toBe(0);
  });

  it("exits 2 for a duplicate JSON key rather than silently taking the last one", () => {
    const text = JSON.stringify(
      input({ evaluator: { name: "generic" }, result: { score: 0.1, threshold: 0.7, unsupported_detected: false } }),
    );
    const r = tessera(["--input", write("dup.json", text.replace('"score":0.1', '"score":0.1,"score":0.9')), "--json"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      "tessera grade: cannot parse input `dup.json`: result: duplicate key `score`\n",
    ]);
  });

  it("appends the audit record as one JSON line per run, without document text", () => {
    const file = write("ok3.json", input());
    tessera(["--input", file, "--audit", "audit.jsonl"]);
    tessera(["--input", file, "--audit", "audit.jsonl"]);
    const lines = readFileSync(join(dir, "audit.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    const audit = JSON.parse(lines[0]!);
    expect(audit).toMatchObject({
      request_id: "req-1",
      evidence: [{ id: "hr-home-office", revision: "2026-04" }],
      state: "supported",
      delivery: "deliver",
    });
    expect(lines[0]).not.toContain(HR.text);
    expect(lines[0]).not.toContain("USD");
  });

  it("prints the audit record on stderr with --audit -, leaving stdout the contract JSON", () => {
    const r = tessera(["--input", "ok.json", "--json", "--audit", "-"]);
    expect(JSON.parse(r.stdout).state).toBe("supported");
    expect(JSON.parse(r.stderr).answer_digest).toMatch(/^sha256:/);
  });

  it("authorizes with --acl: the forbidden document is not evaluated", () => {
    const acl = write("acl.json", { principal: "employee-123", entitlement_version: "7", allow: ["hr-home-office"] });
    const file = write(
      "forbidden.json",
      input({ answer: "Executives may claim up to USD 2000 for office furniture.", evidence: [HR, EXEC] }),
    );
    const without = tessera(["--input", file, "--json"]);
    expect(without.code).toBe(0); // the check below is not vacuous
    const r = tessera(["--input", file, "--acl", acl, "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: "unsupported", evidence_ids: ["hr-home-office"] });
    expect(r.stderr).toBe("tessera grade: not authorized for `employee-123`, not evaluated: `exec-furniture`\n");
  });

  it("applies --on-unavailable and rejects an unknown action", () => {
    const file = write("timeout.json", input({ timed_out: true }));
    const r = tessera(["--input", file, "--on-unavailable", "deliver_with_notice", "--json"]);
    expect([r.code, JSON.parse(r.stdout).delivery]).toEqual([4, "deliver_with_notice"]);
    expect(tessera(["--input", file, "--on-unavailable", "maybe"]).code).toBe(2);
  });
});
