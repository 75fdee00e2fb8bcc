// Pins specs/json-shapes.md: every shape is produced from the real code on the example inputs —
// through the CLI's own entry point (`main`, in process) and, for the determinism rule, the built
// CLI in separate processes — and every object is checked against its table: no key the table
// lacks, every `always` key present, keys in table order, values of the table's types, and every
// row produced by at least one example.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groundQuestion } from "../../src/answers/index.js";
import { openAuditLog } from "../../src/audit/index.js";
import { main } from "../../src/cli/main.js";
import { canonicalJson } from "../../src/core/index.js";
import { openWorkspace } from "../../src/evidence/index.js";
import { digestOf } from "../../src/platform/digest.js";
import { specTable, specTables, value, word } from "../core/spec-tables.js";

const SPEC = "json-shapes.md";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist/cli/main.js");

// ---- the tables, as types -------------------------------------------------------------------

type Type =
  | { readonly t: "prim"; readonly name: string }
  | { readonly t: "lit"; readonly value: unknown }
  | { readonly t: "list"; readonly of: Type }
  | { readonly t: "pair" }
  | { readonly t: "shape"; readonly name: string }
  | { readonly t: "alt"; readonly of: readonly Type[] };

interface Row {
  readonly key: string;
  readonly type: Type;
  readonly always: boolean;
}

const PRIMS = new Set(["string", "integer", "number", "boolean", "null", "scalar", "any"]);
const shapeTables = specTables(SPEC).filter((t) => t.header.join() === "key,type,present,meaning");
const SHAPE_NAMES = new Set(shapeTables.map((t) => t.heading));

function parseType(src: string): Type {
  const alts = src.split(" | ").map((s) => s.trim());
  if (alts.length > 1) return { t: "alt", of: alts.map(parseType) };
  const s = alts[0]!;
  const list = /^list of (.+)$/.exec(s);
  if (list) return { t: "list", of: parseType(list[1]!) };
  if (s === "[string, string]") return { t: "pair" };
  if (PRIMS.has(s)) return { t: "prim", name: s };
  if (/^("|true$|false$|-?\d)/.test(s)) return { t: "lit", value: JSON.parse(s) };
  if (SHAPE_NAMES.has(s)) return { t: "shape", name: s };
  throw new Error(`specs/${SPEC}: unknown type \`${s}\``);
}

const SHAPES = new Map<string, Row[]>(
  shapeTables.map((t) => [
    t.heading,
    t.rows.map((r) => ({ key: word(r[0]!)!, type: parseType(r[1]!), always: r[2] === "always" })),
  ]),
);

/** Keys each shape's examples produced, so a row no example produces fails. */
const produced = new Map<string, Set<string>>();

function check(v: unknown, type: Type, path: string): string[] {
  switch (type.t) {
    case "alt": {
      const tries = type.of.map((t) => check(v, t, path));
      return tries.some((e) => e.length === 0)
        ? []
        : [`${path}: ${JSON.stringify(v)} matches none of ${tries.flat().join("; ")}`];
    }
    case "lit":
      return Object.is(v, type.value) ? [] : [`${path}: want ${JSON.stringify(type.value)}`];
    case "pair":
      return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "string")
        ? []
        : [`${path}: want a pair`];
    case "list":
      return Array.isArray(v) ? v.flatMap((x, i) => check(x, type.of, `${path}[${i}]`)) : [`${path}: want a list`];
    case "prim": {
      const ok =
        type.name === "any" ||
        (type.name === "string" && typeof v === "string") ||
        (type.name === "number" && typeof v === "number") ||
        (type.name === "integer" && Number.isInteger(v)) ||
        (type.name === "boolean" && typeof v === "boolean") ||
        (type.name === "null" && v === null) ||
        (type.name === "scalar" && (v === null || ["string", "number", "boolean"].includes(typeof v)));
      return ok ? [] : [`${path}: want ${type.name}, got ${JSON.stringify(v)}`];
    }
    case "shape":
      return checkShape(v, type.name, path);
  }
}

function checkShape(v: unknown, name: string, path = name): string[] {
  const rows = SHAPES.get(name)!;
  if (v === null || typeof v !== "object" || Array.isArray(v)) return [`${path}: want a ${name} object`];
  const seen = produced.get(name) ?? new Set<string>();
  produced.set(name, seen);
  const keys = Object.keys(v);
  const errors: string[] = [];
  const order = keys.map((k) => rows.findIndex((r) => r.key === k));
  keys.forEach((k, i) => {
    if (order[i] === -1) errors.push(`${path}.${k}: not in the ${name} table`);
    else seen.add(k);
  });
  const known = order.filter((i) => i >= 0);
  if (known.some((x, i) => i > 0 && x < known[i - 1]!))
    errors.push(`${path}: keys ${keys.join(", ")} not in table order`);
  for (const r of rows) {
    if (!Object.hasOwn(v, r.key)) {
      if (r.always) errors.push(`${path}.${r.key}: missing, and the table says always`);
      continue;
    }
    errors.push(...check((v as Record<string, unknown>)[r.key], r.type, `${path}.${r.key}`));
  }
  return errors;
}

// ---- producing the shapes --------------------------------------------------------------------

let tmp = "";
let ws = "";
const examples: { shape: string; label: string; value: unknown }[] = [];
/** The audit log the DecisionEvent examples were written to (its key made their digests). */
let auditFile = "";

async function run(args: readonly string[], env: Record<string, string | undefined> = process.env) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    env: { ...env, NO_COLOR: "1" },
    cwd: ROOT,
  });
  return { code, stdout, stderr };
}

/** Run a `--json` command, check its exit code and formatting, and record its output as `shape`. */
async function json(
  shape: string,
  label: string,
  args: readonly string[],
  exit: number,
  env?: Record<string, string | undefined>,
) {
  const r = await run(args, env);
  expect(r.code, `${label}: ${r.stderr}`).toBe(exit);
  const parsed = JSON.parse(r.stdout) as unknown;
  expect(r.stdout, `${label}: two-space JSON and one line feed`).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
  examples.push({ shape, label, value: parsed });
  return { parsed, ...r };
}

const file = (name: string, content: unknown): string => {
  const path = join(tmp, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

const refunds = (...rest: string[]) => ["check", "--policy", "examples/refunds/policy.yaml", ...rest];

beforeAll(async () => {
  if (!existsSync(MAIN)) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
  tmp = mkdtempSync(join(tmpdir(), "tessera-spec-json-"));
  ws = join(tmp, "ws");
  for (const d of ["runs", "logs", "prs", "tickets", "commits"])
    cpSync(join(ROOT, "examples/ci-workspace", d), join(ws, d), { recursive: true });
  const c1 = file("c1.json", { customer_id: "c-1" });
  const c3 = file("c3.json", { customer_id: "c-3" });

  // Decision: allow, block with explained values, hold, an unlisted tool, an absent argument
  await json(
    "Decision",
    "allow",
    refunds("--call", "examples/refunds/calls/refund-own-order.json", "--context", c1, "--json"),
    0,
  );
  await json(
    "Decision",
    "explained block",
    refunds(
      "--call",
      file("c.json", { tool: "refund_order", arguments: { order_id: 1003, amount_cents: 100 } }),
      "--context",
      file("c2.json", { customer_id: "c-2" }),
      "--json",
      "--explain",
      "values",
    ),
    1,
  );
  await json(
    "Decision",
    "hold",
    refunds(
      "--call",
      file("h.json", { tool: "cancel_order", arguments: { order_id: 1005 } }),
      "--context",
      c3,
      "--json",
    ),
    3,
  );
  await json(
    "Decision",
    "unlisted",
    refunds("--call", file("u.json", { tool: "lookup_order", arguments: { order_id: 1 } }), "--json"),
    0,
  );
  await json(
    "Decision",
    "absent argument",
    refunds(
      "--call",
      file("a.json", { tool: "refund_order", arguments: { order_id: 1001 } }),
      "--context",
      c1,
      "--json",
    ),
    1,
  );

  // DecisionEvent: `check --audit`, and a policy that keeps values in its audit log
  const audit = join(tmp, "audit.db");
  auditFile = audit;
  await run(refunds("--call", "examples/refunds/calls/refund-own-order.json", "--context", c1, "--audit", audit));
  await run(refunds("--call", join(tmp, "u.json"), "--audit", audit));
  const policyText = readFileSync(join(ROOT, "examples/refunds/policy.yaml"), "utf8").replace(
    "path: ./billing.db",
    `path: ${JSON.stringify(join(ROOT, "examples/refunds/billing.db"))}`,
  );
  const valuesPolicy = file(
    "values-policy.yaml",
    `${policyText}\naudit:\n  path: ${JSON.stringify(audit)}\n  values: true\n`,
  );
  await run(["check", "--policy", valuesPolicy, "--call", join(tmp, "c.json"), "--context", c1]);
  const exported = await run(["audit", "export", "--jsonl", "--store", audit]);
  expect(exported.code, exported.stderr).toBe(0);
  const lines = exported.stdout.trimEnd().split("\n");
  expect(lines).toHaveLength(3);
  for (const [i, line] of lines.entries()) {
    const event = JSON.parse(line) as unknown;
    expect(line, "one compact JSON object per line").toBe(JSON.stringify(event));
    examples.push({ shape: "DecisionEvent", label: `audit event ${i}`, value: event });
  }

  // shadow mode: a Decision and a DecisionEvent with `enforced: false`, and the ShadowReport
  const shadowAudit = join(tmp, "shadow.db");
  const shadowPolicy = file("shadow-policy.yaml", policyText.replace(/^version: 1$/m, "version: 1\nmode: shadow"));
  const shadowCheck = ["check", "--policy", shadowPolicy, "--call", join(tmp, "c.json"), "--context", c1];
  await json("Decision", "shadow block", [...shadowCheck, "--json", "--audit", shadowAudit], 0);
  await run(["check", "--policy", shadowPolicy, "--call", join(tmp, "u.json"), "--audit", shadowAudit]);
  const shadowEvents = await run(["audit", "export", "--jsonl", "--store", shadowAudit]);
  for (const line of shadowEvents.stdout.trimEnd().split("\n"))
    examples.push({ shape: "DecisionEvent", label: "shadow audit event", value: JSON.parse(line) as unknown });
  await json("ShadowReport", "shadow report", ["audit", "shadow", "--store", shadowAudit, "--json"], 0);

  // GroundedResult: a documented and resolved failure, a recurring one, a change, a refusal
  await json("GroundedResult", "rca 7001", ["ground", "--workspace", ws, "why did run 7001 fail?", "--json"], 0);
  await json("GroundedResult", "rca 7010", ["ground", "--workspace", ws, "why did run 7010 fail?", "--json"], 0);
  await json("GroundedResult", "summary 47", ["ground", "--workspace", ws, "summarize PR 47", "--json"], 0);
  await json("GroundedResult", "refused", ["ground", "--workspace", ws, "what is the capital of France?", "--json"], 1);

  // ActionProposal: drafted, and refused
  const incident = await json(
    "ActionProposal",
    "incident 7001",
    ["draft", "incident", "--workspace", ws, "why did run 7001 fail?", "--json"],
    0,
  );
  await json(
    "ActionProposal",
    "pr_summary 48",
    ["draft", "pr_summary", "--workspace", ws, "summarize PR 48", "--json"],
    0,
  );
  await json(
    "ActionProposal",
    "refused",
    ["draft", "incident", "--workspace", ws, "why did run 7002 fail?", "--json"],
    1,
  );

  // ProposalCheck: honest and tampered; ClaimsCheck: a supported and an unsupported claim
  await json(
    "ProposalCheck",
    "honest",
    ["verify", "--proposal", file("p.json", incident.stdout), "--workspace", ws, "--json"],
    0,
  );
  await json(
    "ProposalCheck",
    "tampered",
    ["verify", "--proposal", "examples/proposals/incident-7001-tampered.json", "--workspace", ws, "--json"],
    1,
  );
  const record = {
    id: "log:501:4",
    source: "logs/501.log",
    locator: {
      kind: "log-line",
      parts: [
        ["run", "501"],
        ["line", "4"],
      ],
    },
    text: "src/price.ts(4,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    revision: "sha256:0",
  };
  const claims = file("claims.json", [
    { text: "error TS2322", support: [record] },
    { text: "error TS2345", support: [record] },
  ]);
  await json("ClaimsCheck", "claims", ["verify", "--claims", claims, "--json"], 1);

  // GradingRecord and GradeAudit: the three states, an authorization and a generation digest
  for (const [name, exit] of [
    ["supported", 0],
    ["unsupported", 1],
    ["unavailable", 4],
  ] as const) {
    const r = await json(
      "GradingRecord",
      name,
      ["grade", "--input", `examples/grading/${name}.json`, "--json", "--audit", "-"],
      exit,
    );
    examples.push({ shape: "GradeAudit", label: `${name} audit`, value: JSON.parse(r.stderr) });
  }
  const supported = JSON.parse(readFileSync(join(ROOT, "examples/grading/supported.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const digest = (examples.find((e) => e.label === "supported audit")!.value as { evidence_digest: string })
    .evidence_digest;
  const withDigest = file("graded.json", { ...supported, generation_digest: digest });
  const acl = await run([
    "grade",
    "--input",
    withDigest,
    "--acl",
    "cases/grade/inputs/acl-employee-123.json",
    "--json",
    "--audit",
    "-",
  ]);
  expect(acl.code, acl.stderr).toBe(0);
  examples.push({ shape: "GradeAudit", label: "authorized audit", value: JSON.parse(acl.stderr) });

  // LintReport: a valid policy, and one with an error and a warning
  await json("LintReport", "valid", ["policy", "lint", "examples/refunds/policy.yaml", "--json"], 0);
  await json("LintReport", "errors", ["policy", "lint", "test/checks/fixtures/bad/undefined-source.yaml", "--json"], 2);
  await json("LintReport", "connect", ["policy", "lint", "examples/refunds/policy.yaml", "--json", "--connect"], 0);

  // IngestSummary: a workspace with a problem, and ingest git
  const ingestWs = join(tmp, "ingest");
  cpSync(ws, ingestWs, { recursive: true, filter: (p) => !p.includes(".tessera") });
  writeFileSync(join(ingestWs, "runs", "9.json"), "{");
  await json("IngestSummary", "ingest", ["ingest", ingestWs, "--json"], 1);
  const repo = join(tmp, "repo");
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", repo, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "A",
        GIT_AUTHOR_EMAIL: "a@x.test",
        GIT_COMMITTER_NAME: "A",
        GIT_COMMITTER_EMAIL: "a@x.test",
      },
    });
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  writeFileSync(join(repo, "a.txt"), "one\n");
  git("add", "a.txt");
  git("commit", "-q", "-m", "one");
  writeFileSync(join(repo, "a.txt"), "two\n");
  git("commit", "-q", "-am", "two");
  await json(
    "IngestSummary",
    "ingest git",
    ["ingest", "git", repo, "--range", "HEAD~1..HEAD", "--into", join(tmp, "git-ws"), "--json"],
    0,
  );

  // ActionCatalog, TestReport (a pass, a malformed case and a skipped one)
  await json("ActionCatalog", "actions", ["actions", "--json"], 0);
  const caseDir = join(tmp, "cases");
  cpSync(join(ROOT, "cases/check/refunds/own-delivered-allow.yaml"), join(caseDir, "pass.yaml"));
  writeFileSync(join(caseDir, "bad.yaml"), "note: [unclosed\n");
  writeFileSync(
    join(caseDir, "skip.yaml"),
    `note: needs a server nobody set\nkind: check\npolicy: ${JSON.stringify(join(ROOT, "examples/refunds/policy.yaml"))}\nlive: [TESSERA_SPEC_UNSET_URL]\ncall: {tool: x, arguments: {}}\nwant: {}\n`,
  );
  const { TESSERA_REQUIRE_LIVE: _required, ...relaxed } = process.env;
  await json("TestReport", "test", ["test", caseDir, "--json"], 2, relaxed);

  // EvidenceRecord and Locator: records as the store holds them
  const store = await openWorkspace(ws);
  try {
    for (const id of ["run:7001", "log:7001:9", "pr:47", "ticket:PLAT-88"])
      examples.push({ shape: "EvidenceRecord", label: id, value: store.getRecord(id) });
  } finally {
    store.close();
  }
  const claimsInput = JSON.parse(readFileSync(claims, "utf8")) as { support: unknown[] }[];
  examples.push({ shape: "EvidenceRecord", label: "claims input", value: claimsInput[0]!.support[0] });
}, 120_000);

afterAll(() => {
  if (tmp !== "") rmSync(tmp, { recursive: true, force: true });
});

describe("specs/json-shapes.md", () => {
  it("has its shape tables, each a known name", () => {
    expect(SHAPES.size).toBeGreaterThanOrEqual(20);
    for (const name of SHAPES.keys()) expect(name).toMatch(/^[A-Z][A-Za-z]+$/);
  });

  it("every example matches its shape's table", () => {
    expect(examples.length).toBeGreaterThan(30);
    const errors = examples.flatMap((e) => checkShape(e.value, e.shape).map((m) => `${e.label}: ${m}`));
    expect(errors).toEqual([]);
  });

  it("every row of every table is produced by some example", () => {
    // checkShape fills `produced`; run it here too so this test does not depend on the order of tests
    for (const e of examples) checkShape(e.value, e.shape);
    const unproduced = [...SHAPES].flatMap(([name, rows]) =>
      rows.filter((r) => !produced.get(name)?.has(r.key)).map((r) => `${name}.${r.key}`),
    );
    expect(unproduced).toEqual([]);
  });

  it.each(specTable(SPEC, "Canonical JSON and digests (pinned)").rows.map((r) => [r[0]!, r]))(
    "canonicalJson and digestOf of %s",
    (_v, r) => {
      const v = value(r[0]!);
      expect(canonicalJson(v)).toBe(word(r[1]!));
      expect(digestOf(v)).toBe(word(r[2]!));
    },
  );

  it("the digests of arguments and context in audit events are keyed by the store, never digestOf", () => {
    const event = examples.find((e) => e.label === "audit event 0")!.value as Record<string, string>;
    const log = openAuditLog(auditFile);
    expect(event.arguments_digest).toBe(log.digest({ order_id: 1001, amount_cents: 4999 }));
    expect(event.context_digest).toBe(log.digest({ customer_id: "c-1" }));
    log.close();
    expect(event.arguments_digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(event.arguments_digest).not.toBe(digestOf({ order_id: 1001, amount_cents: 4999 }));
  });

  it("claims come in the order and shapes of the claim-roles table, for every run and PR of the example", async () => {
    const t = specTable(SPEC, "Claim roles (pinned)");
    expect(t.header).toEqual(["role", "route", "shape", "count", "text and cited records"]);
    const rows = t.rows.map((r) => ({ role: word(r[0]!)!, route: r[1]!, shape: r[2]!, count: r[3]!, text: r[4]! }));
    const quantifier = (count: string): string => {
      if (count === "1") return "";
      if (count === "0+") return "*";
      const m = /^0–(\d+)$/.exec(count);
      if (m) return `{0,${m[1]}}`;
      throw new Error(`count \`${count}\``);
    };
    const pattern = (route: string) => {
      let src = "";
      for (const r of rows.filter((x) => x.route === route)) {
        const after = /^after each `(\w+)`$/.exec(r.count);
        if (after) src = src.replace(new RegExp(`\\(${after[1]} \\)\\*$`), `(${after[1]} ${r.role} )*`);
        else src += `(${r.role} )${quantifier(r.count)}`;
      }
      return new RegExp(`^${src}$`);
    };
    const store = await openWorkspace(ws);
    const seen = new Set<string>();
    try {
      const questions = [
        ...store.listRuns().map((r) => `why did run ${r.id} fail?`),
        ...store.listPrs().map((p) => `summarize PR ${p.id.slice(3)}`),
        ...store.listCommits().map((c) => `summarize commit ${c.id.slice(7)}`),
      ];
      for (const q of questions) {
        const g = groundQuestion(store, q);
        if (g.refused) continue;
        const roles = g.claims.map((c) => `${c.role} `).join("");
        expect(roles, q).toMatch(pattern(g.route.kind));
        for (const c of g.claims) {
          const row = rows.find((r) => r.role === c.role)!;
          seen.add(c.role);
          expect([row.route, row.shape], `${q}: ${c.role}`).toEqual([g.route.kind, c.shape]);
          const label = /^`([A-Z][a-z]+ [a-z]+): /.exec(row.text);
          const cited = c.support[0]!.text;
          if (label) expect(c.text.startsWith(`${label[1]}: "`), `${q}: ${c.text}`).toBe(true);
          else if (row.text.startsWith("the first line of")) expect(c.text, q).toBe(cited.split("\n")[0]!.trim());
          else if (row.text.includes("hunk")) expect(cited.startsWith(c.text), q).toBe(true);
          else expect(c.text, q).toBe(cited.trim());
          if (!label) expect(c.support, `${q}: a snippet cites one record`).toHaveLength(1);
        }
      }
    } finally {
      store.close();
    }
    expect([...seen].sort()).toEqual(rows.map((r) => r.role).sort());
  });

  it.each(specTable(SPEC, "Refusals (pinned)").rows.map((r) => [r[0]!, r]))("refuses %s", async (question, r) => {
    const store = await openWorkspace(ws);
    try {
      const g = groundQuestion(store, question);
      const refusal = /^``(.*)``$/.exec(r[3]!)?.[1] ?? r[3];
      expect(g).toMatchObject({
        question,
        route: { kind: r[1], reason: r[2] },
        grounded: false,
        refused: true,
        refusal,
        claims: [],
        all_verified: false,
      });
    } finally {
      store.close();
    }
  });

  it("proposal fields are drafted as the rules say", () => {
    for (const e of examples.filter((x) => x.shape === "ActionProposal")) {
      const p = e.value as {
        refused: boolean;
        fields: { name: string; role: string; verified: boolean }[];
        all_grounded: boolean;
      };
      if (p.refused) {
        expect(p.fields, e.label).toEqual([]);
        expect(p.all_grounded).toBe(false);
        continue;
      }
      expect(p.fields[0]!.name, e.label).toBe("title");
      const rest = p.fields.slice(1);
      const total = new Map<string, number>();
      for (const f of rest) total.set(f.role, (total.get(f.role) ?? 0) + 1);
      const n = new Map<string, number>();
      for (const f of rest) {
        n.set(f.role, (n.get(f.role) ?? 0) + 1);
        expect(f.name, e.label).toBe(total.get(f.role) === 1 ? f.role : `${f.role}_${n.get(f.role)}`);
      }
      expect(p.all_grounded).toBe(p.fields.length > 0 && p.fields.every((f) => f.verified));
    }
  });

  it("the same input gives byte-identical --json in separate processes", () => {
    const commands = [
      ["ground", "--workspace", ws, "why did run 7004 fail?", "--json"],
      ["draft", "pr_summary", "--workspace", ws, "summarize PR 47", "--json"],
      [
        "check",
        "--policy",
        "examples/refunds/policy.yaml",
        "--call",
        "examples/refunds/calls/refund-own-order.json",
        "--json",
      ],
      ["grade", "--input", "examples/grading/unsupported.json", "--json"],
    ];
    for (const args of commands) {
      const [a, b] = [0, 1].map(
        () => spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: "utf8" }).stdout,
      );
      expect(a!.length, args.join(" ")).toBeGreaterThan(0);
      expect(a, args.join(" ")).toBe(b);
    }
  });
});
