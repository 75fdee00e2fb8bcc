// POST /v1/grade and POST /v1/verify answer byte for byte what `tessera grade --json` and
// `tessera verify --json` print: every case of cases/grade and cases/verify that the command line
// can express is run through both, the CLI as a process and the service as a process.
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundsPolicy, request, root, runCli, type ServeProcess, startServeProcess, tempDir } from "./harness.js";

const t = tempDir("tessera-serve-grade");
const workspace = join(t.dir, "ws");
let serving: ServeProcess;
beforeAll(async () => {
  cpSync(join(root, "examples", "ci-workspace"), workspace, { recursive: true });
  serving = await startServeProcess([
    "--policy",
    refundsPolicy,
    "--store",
    join(t.dir, "s.db"),
    "--workspace",
    workspace,
  ]);
});
afterAll(async () => {
  serving.child.kill("SIGTERM");
  expect(await serving.exited).toBe(0);
  t.cleanup();
});

const read = (file: string): unknown => {
  const text = readFileSync(file, "utf8");
  return file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
};
const yamlCases = (kind: string) =>
  readdirSync(join(root, "cases", kind))
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => [f, parseYaml(readFileSync(join(root, "cases", kind, f), "utf8")) as Record<string, unknown>] as const);

describe("POST /v1/grade", () => {
  const cases = yamlCases("grade").filter(
    ([, doc]) => (doc.policy as { supported?: unknown } | undefined)?.supported === undefined,
  );
  it("covers the grade cases", () => expect(cases.length).toBeGreaterThanOrEqual(40));

  it.each(cases)("%s", async (name, doc) => {
    const dir = join(root, "cases", "grade");
    let input = (typeof doc.input === "string" ? read(resolve(dir, doc.input)) : doc.input) as Record<string, unknown>;
    if (typeof doc.result_file === "string") input = { ...input, result: read(resolve(dir, doc.result_file)) };
    const inputFile = join(t.dir, `${name}.input.json`);
    writeFileSync(inputFile, JSON.stringify(input));
    const args = ["grade", "--input", inputFile, "--json"];
    const body: Record<string, unknown> = { input };
    if (doc.access !== undefined) {
      const acl = typeof doc.access === "string" ? read(resolve(dir, doc.access)) : doc.access;
      const aclFile = join(t.dir, `${name}.acl.json`);
      writeFileSync(aclFile, JSON.stringify(acl));
      args.push("--acl", aclFile);
      body.acl = acl;
    }
    if (typeof doc.evaluator === "string") {
      args.push("--evaluator", doc.evaluator);
      body.evaluator = doc.evaluator;
    }
    const policy = (doc.policy ?? {}) as { unsupported?: string; unavailable?: string };
    if (policy.unsupported) {
      args.push("--on-unsupported", policy.unsupported);
      body.on_unsupported = policy.unsupported;
    }
    if (policy.unavailable) {
      args.push("--on-unavailable", policy.unavailable);
      body.on_unavailable = policy.unavailable;
    }
    const cli = await runCli(args);
    expect([0, 1, 4], cli.stderr).toContain(cli.code);
    const got = await request(serving.url, "POST", "/v1/grade", { body });
    expect(got.status, got.text).toBe(200);
    expect(got.text).toBe(cli.stdout);
  });

  it("refuses a bad grading input naming its field", async () => {
    const got = await request(serving.url, "POST", "/v1/grade", {
      body: { input: { request_id: "r", query: "q", answer: "a", evidence: [{ id: "d", revision: "1", text: 5 }] } },
    });
    expect(got.status).toBe(400);
    expect((got.json as { error: { message: string } }).error.message).toMatch(/^input\.evidence\[0\]\.text: /);
    const missing = await request(serving.url, "POST", "/v1/grade", { body: { acl: {} } });
    expect((missing.json as { error: { message: string } }).error.message).toBe("input: required (the grading input)");
  });
});

describe("POST /v1/verify", () => {
  const dir = join(root, "cases", "verify");
  const cases = yamlCases("verify").filter(
    ([, doc]) =>
      doc.grounding === undefined &&
      doc.records === undefined &&
      (doc.claims !== undefined || doc.workspace !== undefined),
  );
  it("covers the claims and workspace cases", () => expect(cases.length).toBeGreaterThanOrEqual(10));

  it.each(cases)("%s", async (name, doc) => {
    let args: string[];
    let body: Record<string, unknown>;
    if (doc.claims !== undefined) {
      const claims = typeof doc.claims === "string" ? read(resolve(dir, doc.claims)) : doc.claims;
      const file = join(t.dir, `${name}.claims.json`);
      writeFileSync(file, JSON.stringify(claims));
      args = ["verify", "--claims", file, "--json"];
      body = { claims };
    } else {
      const proposal = read(resolve(dir, doc.proposal as string));
      const file = join(t.dir, `${name}.proposal.json`);
      writeFileSync(file, JSON.stringify(proposal));
      args = [
        "verify",
        "--proposal",
        file,
        "--workspace",
        workspace,
        "--json",
        ...(doc.allow_partial ? ["--allow-partial"] : []),
      ];
      body = { proposal, ...(doc.allow_partial ? { allow_partial: true } : {}) };
    }
    const cli = await runCli(args);
    expect([0, 1], cli.stderr).toContain(cli.code);
    const got = await request(serving.url, "POST", "/v1/verify", { body });
    expect(got.status, got.text).toBe(200);
    expect(got.text).toBe(cli.stdout);
  });

  it("refuses a body with both or neither, and bad claims naming their field", async () => {
    const both = await request(serving.url, "POST", "/v1/verify", { body: { claims: [], proposal: {} } });
    expect((both.json as { error: { message: string } }).error.message).toBe(
      "(body): give exactly one of `claims` and `proposal`",
    );
    const bad = await request(serving.url, "POST", "/v1/verify", { body: { claims: [{ text: 5, support: [] }] } });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { message: string } }).error.message).toMatch(/^claims\[0\]\.text: /);
  });
});
