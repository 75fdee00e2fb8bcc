/**
 * Case kind `check`: a tool call and trusted context against a policy, compared with `want`
 * (DESIGN.md §9). `fixtures: {<source>: <file.sql | file.db>}` builds the named SQLite sources in
 * a temporary folder so a case carries its own data; otherwise the policy's own sources are used.
 * @module
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PolicyError, loadPolicy } from "../../checks/load.js";
import type { Policy, SourceConfig } from "../../checks/policy.js";
import { TesseraError } from "../../platform/errors.js";
import { createGate } from "../../sources/gate.js";
import type { CaseContext, CaseDoc, CaseKindRunner, CaseOutcome } from "../types.js";
import { compareWant } from "../want.js";

const KEYS = new Set(["note", "kind", "policy", "call", "context", "explain", "fixtures", "env", "want"]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function invalid(ctx: CaseContext, message: string): TesseraError {
  return new TesseraError("case_invalid", `${ctx.file}: ${message}`);
}

/** JSON-shaped copy (bigints as strings), so `want` compares against exactly what `--json` prints. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))) as unknown;
}

async function buildFixtures(policy: Policy, fixtures: Record<string, unknown>, ctx: CaseContext, dir: string): Promise<Policy> {
  const sources: Record<string, SourceConfig> = { ...policy.sources };
  for (const [name, file] of Object.entries(fixtures)) {
    const config = Object.hasOwn(sources, name) ? sources[name] : undefined;
    if (config === undefined) throw invalid(ctx, `fixtures.${name}: the policy has no source \`${name}\``);
    if (config.kind !== "sqlite") throw invalid(ctx, `fixtures.${name}: source \`${name}\` is a ${config.kind} source; fixtures replace sqlite sources`);
    if (typeof file !== "string" || !/\.(sql|db|sqlite3?)$/.test(file)) throw invalid(ctx, `fixtures.${name}: expected a \`.sql\` or \`.db\` file`);
    const from = resolve(ctx.dir, file);
    const to = join(dir, `${name.replace(/[^A-Za-z0-9_-]/g, "_")}.db`);
    try {
      if (file.endsWith(".sql")) {
        const sql = readFileSync(from, "utf8");
        const { default: Database } = await import("better-sqlite3");
        const db = new Database(to);
        try {
          db.pragma("journal_mode = OFF"); // a throwaway copy: no journal, no fsync
          db.pragma("synchronous = OFF");
          db.exec(sql);
        } finally {
          db.close();
        }
      } else {
        copyFileSync(from, to);
      }
    } catch (err) {
      throw invalid(ctx, `fixtures.${name}: cannot build \`${file}\` (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`);
    }
    sources[name] = { ...config, path: to };
  }
  return { ...policy, sources };
}

function errorShape(err: unknown): Record<string, unknown> {
  if (err instanceof PolicyError) {
    const first = err.issues.find((i) => i.severity === "error") ?? err.issues[0]!;
    return { error: { code: first.code, path: first.path, line: first.line, message: first.message } };
  }
  if (err instanceof TesseraError) return { error: { code: err.code, message: err.message } };
  throw err;
}

/** The `check` case runner. */
export const checkKind: CaseKindRunner = {
  kind: "check",
  async run(doc: CaseDoc, ctx: CaseContext): Promise<CaseOutcome> {
    for (const k of Object.keys(doc)) if (!KEYS.has(k)) throw invalid(ctx, `unknown key "${k}"`);
    if (typeof doc.policy !== "string") throw invalid(ctx, "policy: expected the path of a policy file");
    if (!isObject(doc.call)) throw invalid(ctx, "call: expected `{tool, arguments}`");
    if (doc.context !== undefined && !isObject(doc.context)) throw invalid(ctx, "context: expected a mapping");
    if (doc.explain !== undefined && doc.explain !== "values") throw invalid(ctx, "explain: expected `values`");
    if (doc.fixtures !== undefined && !isObject(doc.fixtures)) throw invalid(ctx, "fixtures: expected a mapping of source name to file");
    if (doc.env !== undefined && (!isObject(doc.env) || Object.values(doc.env).some((v) => typeof v !== "string"))) throw invalid(ctx, "env: expected a mapping of names to strings");
    const env = { ...ctx.env, ...((doc.env as Record<string, string> | undefined) ?? {}) };
    const tmp = doc.fixtures !== undefined ? mkdtempSync(join(tmpdir(), "tessera-case-")) : null;
    let got: unknown;
    try {
      let policy: Policy;
      try {
        policy = await loadPolicy(doc.policy, { env, cwd: ctx.dir });
      } catch (err) {
        got = errorShape(err);
        return outcome(doc.want, got);
      }
      if (tmp !== null) policy = await buildFixtures(policy, doc.fixtures as Record<string, unknown>, ctx, tmp);
      const { audit: _audit, ...quiet } = policy; // replaying a case never writes the policy's audit log
      const gate = createGate(quiet);
      try {
        got = plain(await gate.check(doc.call as never, (doc.context as Record<string, unknown> | undefined) ?? {}, doc.explain === "values" ? { explain: "values" } : {}));
      } catch (err) {
        got = errorShape(err);
      } finally {
        await gate.close();
      }
      return outcome(doc.want, got);
    } finally {
      if (tmp !== null) rmSync(tmp, { recursive: true, force: true });
    }
  },
};

function outcome(want: unknown, got: unknown): CaseOutcome {
  const failures = compareWant(want, got);
  return { passed: failures.length === 0, failures, got };
}
