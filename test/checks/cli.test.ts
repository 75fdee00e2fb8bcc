// `tessera check` and `tessera policy` as a user runs them (node dist/cli/main.js; `npm run build`
// first). Bad input exits 2 with one precise line on stderr, prints nothing on stdout and never
// reaches a source (the audit log a decision would write is never created).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readAuditEvents } from "../../src/audit/index.js";

const root = new URL("../../", import.meta.url).pathname;
const main = join(root, "dist/cli/main.js");
const policy = join(root, "examples/refunds/policy.yaml");
const bad = join(root, "test/checks/fixtures/bad");
let dir: string;

function tessera(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [main, ...args], {
    cwd: dir,
    input,
    encoding: "utf8",
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tessera-cli-"));
  file("own.json", JSON.stringify({ tool: "refund_order", arguments: { order_id: 1001, amount_cents: 4999 } }));
  file("c1.json", JSON.stringify({ customer_id: "c-1" }));
  file("c2.json", JSON.stringify({ customer_id: "c-2" }));
  file("c3.json", JSON.stringify({ customer_id: "c-3" }));
  file("cancel.json", JSON.stringify({ tool: "cancel_order", arguments: { order_id: 1005 } }));
});

describe("tessera check", () => {
  it("exits 0 on allow, 1 on block, 3 on hold", () => {
    expect(tessera(["check", "--policy", policy, "--call", "own.json", "--context", "c1.json"]).code).toBe(0);
    expect(tessera(["check", "--policy", policy, "--call", "own.json", "--context", "c2.json"]).code).toBe(1);
    expect(tessera(["check", "--policy", policy, "--call", "cancel.json", "--context", "c3.json"]).code).toBe(3);
  });

  it("prints a readable table by default", () => {
    const r = tessera(["check", "--policy", policy, "--call", "own.json", "--context", "c2.json"]);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^BLOCK {2}refund_order {2}policy sha256:[0-9a-f]{12}…$/);
    expect(lines[2]).toBe("argument      check  source   status    outcome  attempts  rows  conditions");
    expect(lines[3]).toBe(
      'order_id      0      billing  mismatch  block    1         1     ✗ customer_id = ctx.customer_id (not_equal); ✓ status = "delivered"',
    );
  });

  it("prints exactly the contract JSON with --json, byte-identical on repeat", () => {
    const a = tessera(["check", "--policy", policy, "--call", "own.json", "--context", "c2.json", "--json"]);
    const b = tessera(["check", "--policy", policy, "--call", "own.json", "--context", "c2.json", "--json"]);
    expect(a.stdout).toBe(b.stdout);
    const d = JSON.parse(a.stdout) as Record<string, unknown>;
    expect(Object.keys(d)).toEqual(["decision", "tool", "policy_digest", "checks"]);
    expect(a.stdout).not.toContain('"expected"');
    const explained = tessera([
      "check",
      "--policy",
      policy,
      "--call",
      "own.json",
      "--context",
      "c2.json",
      "--json",
      "--explain",
      "values",
    ]);
    expect(JSON.parse(explained.stdout).checks[0]).toMatchObject({
      value: 1001,
      conditions: [{ expected: "c-2", actual: "c-1" }, { ok: true }],
    });
  });

  it("reads the call from stdin", () => {
    const r = tessera(
      ["check", "--policy", policy, "--call", "-", "--context", "c1.json", "--json"],
      JSON.stringify({ tool: "lookup_order", arguments: { order_id: 1 } }),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: "allow", reason: "unlisted_tool", checks: [] });
  });

  it("appends every decision to --audit with digests and no values", () => {
    const audit = join(dir, "audit", "log.db");
    tessera(["check", "--policy", policy, "--call", "own.json", "--context", "c1.json", "--audit", audit]);
    tessera([
      "check",
      "--policy",
      policy,
      "--call",
      "own.json",
      "--context",
      "c2.json",
      "--audit",
      audit,
      "--explain",
      "values",
    ]);
    const events = readAuditEvents(audit);
    expect(events.map((e) => [e.type, e.decision])).toEqual([
      ["tessera.decision.v1", "allow"],
      ["tessera.decision.v1", "block"],
    ]);
    expect(Object.keys(events[0]!)).toEqual([
      "type",
      "id",
      "at",
      "tool",
      "decision",
      "policy_digest",
      "arguments_digest",
      "context_digest",
      "checks",
    ]);
    // ids and digests are random or hex: leave them out before looking for values
    const text = JSON.stringify(
      events.map(({ id: _i, at: _a, policy_digest: _p, arguments_digest: _d, context_digest: _c, ...rest }) => rest),
    );
    for (const value of ["c-1", "c-2", "1001", "4999"]) expect(text).not.toContain(value);
  });

  const inputErrors: [string, string[], string | null, string][] = [
    ["malformed call json", ["--call", "x.json"], "{tool:", "tessera check: x.json: call is not valid json ("],
    [
      "call not an object",
      ["--call", "x.json"],
      "[1]",
      'tessera check: x.json: a call is a json object `{"tool": "...", "arguments": {...}}`\n',
    ],
    [
      "unknown key in the call",
      ["--call", "x.json"],
      '{"tool":"refund_order","args":{}}',
      'tessera check: x.json: unknown key "args" (a call has `tool` and `arguments`)\n',
    ],
    [
      "tool missing",
      ["--call", "x.json"],
      '{"arguments":{}}',
      "tessera check: x.json: tool: expected a non-empty string\n",
    ],
    [
      "arguments not an object",
      ["--call", "x.json"],
      '{"tool":"refund_order","arguments":[1001]}',
      "tessera check: x.json: arguments: expected an object\n",
    ],
    [
      "malformed context json",
      ["--call", "own.json", "--context", "x.json"],
      "{'customer_id': 'c-1'}",
      "tessera check: x.json: context is not valid json (",
    ],
    [
      "context not an object",
      ["--call", "own.json", "--context", "x.json"],
      '"c-1"',
      "tessera check: x.json: trusted context is a json object of fields\n",
    ],
    ["missing call file", ["--call", "nope.json"], null, "tessera check: no such call file `nope.json`\n"],
    ["missing --call", [], null, "tessera check: missing required option `--call`\n"],
    [
      "bad --explain",
      ["--call", "own.json", "--explain", "everything"],
      null,
      "tessera check: `--explain` takes `values`, got `everything`\n",
    ],
  ];
  it.each(inputErrors)("%s: exit 2, one precise line, nothing queried", (_name, args, content, message) => {
    if (content !== null) file("x.json", content);
    const audit = join(dir, `never-${Math.random().toString(36).slice(2)}.db`);
    const r = tessera(["check", "--policy", policy, ...args, "--audit", audit]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    if (message.endsWith("\n")) expect(r.stderr).toBe(message);
    else
      expect(r.stderr.startsWith(message) && r.stderr.endsWith(")\n") && r.stderr.split("\n").length === 2).toBe(true);
    expect(existsSync(audit)).toBe(false);
  });

  const policyErrors: [string, string][] = [
    [
      "unknown-key.yaml",
      'unknown-key.yaml:14: tools.refund_order.arguments.order_id.ground.checks[0].match[1]: unknown key "colum"',
    ],
    [
      "undefined-source.yaml",
      "undefined-source.yaml:10: tools.refund_order.arguments.order_id.ground.checks[0].source: undefined source `billing-production` (defined: `billing`)",
    ],
    [
      "write-statement.yaml",
      "write-statement.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].query: a query must be one read-only `SELECT` or `WITH` statement, got `delete`",
    ],
    ["wrong-type.yaml", "wrong-type.yaml:3: sources.billing.timeout_ms: expected number, got string `soon`"],
    [
      "malformed.yaml",
      "malformed.yaml:4: invalid yaml: flow map in block collection must be sufficiently indented and end with a }",
    ],
    [
      "env-missing.yaml",
      "env-missing.yaml:5: sources.billing-production.url: environment variable `TESSERA_TEST_UNSET_BILLING_URL` is not set",
    ],
    ["missing.yaml", "no such policy file `missing.yaml`"],
  ];
  it.each(policyErrors)("policy %s: exit 2 with file, line and path", (name, message) => {
    const audit = join(dir, `never-${name}.db`);
    const r = spawnSync(
      process.execPath,
      [main, "check", "--policy", name, "--call", join(dir, "own.json"), "--audit", audit],
      { cwd: bad, encoding: "utf8", env: { PATH: process.env.PATH } },
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`tessera check: ${message}\n`);
    expect(existsSync(audit)).toBe(false);
  });
});

describe("tessera policy", () => {
  it("lints the example clean", () => {
    const r = tessera(["policy", "lint", policy]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n0 errors, 0 warnings {2}sha256:[0-9a-f]{64}\n$/);
    // and says where every binding of every check comes from (adr/0046)
    expect(r.stdout).toContain("refund_order.order_id[0]      customer_id  match    trusted context (the host)\n");
    expect(r.stdout).toContain("refund_order.amount_cents[0]  order_id     request  the call's argument (the agent)\n");
  });

  it("lists every issue and exits 2 on an error", () => {
    const p = file(
      "two.yaml",
      "version: 1\nsources:\n  db: { kind: sqlite, path: x.db, extra: 1 }\ntools:\n  t:\n    arguments:\n      a:\n        ground:\n          checks:\n            - { source: db, query: 'SELECT 1 AS one', match: [ { colum: one, value: 1 } ] }\n",
    );
    const r = tessera(["policy", "lint", p]);
    expect(r.code).toBe(2);
    expect(r.stdout.split("\n").slice(0, 2)).toEqual([
      `${p}:3: error: sources.db: unknown key "extra" [schema_invalid]`,
      `${p}:10: error: tools.t.arguments.a.ground.checks[0].match[0]: unknown key "colum" [schema_invalid]`,
    ]);
    expect(r.stdout.split("\n")[2]).toBe("2 errors, 0 warnings");
  });

  it("reports warnings as JSON and exits 0", () => {
    const p = file(
      "warn.yaml",
      "version: 1\nsources:\n  db: { kind: sqlite, path: x.db }\ntools:\n  t:\n    arguments:\n      a:\n        ground:\n          retry: { on_error: allow }\n          checks:\n            - { source: db, query: 'SELECT 1 AS one WHERE :value IS NOT NULL', match: [ { column: one, value: 1 } ] }\n",
    );
    const r = tessera(["policy", "lint", p, "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      valid: boolean;
      errors: number;
      warnings: number;
      issues: { code: string; line: number | null }[];
    };
    expect(out).toMatchObject({ valid: true, errors: 0, warnings: 3 });
    expect(out.issues.map((i) => [i.code, i.line])).toEqual([
      ["sqlite_missing", 3],
      ["on_error_allow", 9],
      ["unlisted_tools_default", null],
    ]);
  });

  it("warns from SQLite's query plan: full scans, unpreparable queries, missing files", () => {
    const db = join(root, "examples/refunds/billing.db");
    const p = file(
      "plans.yaml",
      `version: 1\nsources:\n  billing: { kind: sqlite, path: ${JSON.stringify(db)} }\n  gone: { kind: sqlite, path: ./gone.db }\ndefaults: { unlisted_tools: allow }\ntools:\n  t:\n    arguments:\n      a:\n        ground:\n          checks:\n` +
        "            - { source: billing, query: 'SELECT customer_id FROM orders WHERE status = :value', match: [ { rows: gte, value: 1 } ] }\n" +
        "            - { source: billing, query: 'SELECT customer_id FROM orders WHERE order_id = :value', match: [ { rows: gte, value: 1 } ] }\n" +
        "            - { source: billing, query: 'SELECT nope FROM orders WHERE order_id = :value', match: [ { rows: gte, value: 1 } ] }\n" +
        "            - { source: gone, query: 'SELECT 1 AS x WHERE :value', match: [ { rows: gte, value: 1 } ] }\n",
    );
    const r = tessera(["policy", "lint", p, "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { issues: { code: string; line: number | null; message: string }[] };
    expect(out.issues.map((i) => [i.code, i.line, i.message])).toEqual([
      ["sqlite_missing", 4, `database file \`${join(dir, "gone.db")}\` does not exist (yet)`],
      [
        "sqlite_full_scan",
        12,
        "the query scans `orders` without an index, so every decision reads the whole table (adr/0005)",
      ],
      ["sqlite_invalid_query", 14, "`billing` cannot prepare the query: no such column: nope"],
    ]);
  });

  it("prints the JSON Schema", () => {
    const r = tessera(["policy", "schema"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "Tessera policy",
      type: "object",
    });
  });

  it("rejects an unknown subcommand", () => {
    const r = tessera(["policy", "format"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "tessera policy: unknown subcommand `format`: expected `lint` or `schema`\n",
    ]);
  });
});

describe("tessera test", () => {
  it("runs cases/check offline and ends with the plain summary line", () => {
    const r = spawnSync(process.execPath, [main, "test", "cases/check"], {
      cwd: root,
      encoding: "utf8",
      env: { PATH: process.env.PATH, NO_COLOR: "1" },
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toMatch(/^\d+ passed, 0 failed$/);
  });
});
