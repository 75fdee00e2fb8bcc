/**
 * Case kind `check`: a tool call and trusted context against a policy, compared with `want`
 * (DESIGN.md §9). `fixtures: {<source>: <file.sql | file.db>}` builds the named SQLite sources in
 * a temporary folder so a case carries its own data; `fixtures: {<source>: <file.recorded.json>}`
 * replays an http, mcp, postgres or mysql source from a recording (an unrecorded request fails the
 * case); otherwise the policy's own sources are used. Live SQL cases name the environment
 * variables they need in `live:` and prepare their tables with `setup_sql: {<source>: file.sql}`
 * (adr/0040-live-and-recorded-check-cases.md).
 * @module
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PolicyError, loadPolicy } from "../../checks/load.js";
import type { Policy, SourceConfig } from "../../checks/policy.js";
import type { OpenSource } from "../../checks/engine.js";
import { type Source, SourceError } from "../../checks/source.js";
import { TesseraError } from "../../platform/errors.js";
import { DEFAULT_TIMEOUT_MS } from "../../sources/adapter-util.js";
import { createGate, registryOpener } from "../../sources/gate.js";
import { createRecordedSource, loadRecording, type RecordingFile } from "../../sources/recorded.js";
import type { CaseContext, CaseDoc, CaseKindRunner, CaseOutcome } from "../types.js";
import { compareWant } from "../want.js";

const KEYS = new Set([
  "note",
  "kind",
  "policy",
  "call",
  "context",
  "explain",
  "fixtures",
  "env",
  "live",
  "setup_sql",
  "want",
]);

/** Local servers a live case falls back to when its variable is unset and live servers are not required. */
export const LIVE_DEFAULTS: Readonly<Record<string, string>> = {
  TESSERA_PG_URL: "postgres://postgres@127.0.0.1:5432/test",
  TESSERA_MYSQL_URL: "mysql://root@127.0.0.1:3306/test",
};

const RECORDED = /\.recorded\.json$/;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function invalid(ctx: CaseContext, message: string): TesseraError {
  return new TesseraError("case_invalid", `${ctx.file}: ${message}`);
}

/** JSON-shaped copy (bigints as strings), so `want` compares against exactly what `--json` prints. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))) as unknown;
}

async function buildFixtures(
  policy: Policy,
  fixtures: Record<string, unknown>,
  ctx: CaseContext,
  dir: string,
): Promise<Policy> {
  const sources: Record<string, SourceConfig> = { ...policy.sources };
  for (const [name, file] of Object.entries(fixtures)) {
    const config = Object.hasOwn(sources, name) ? sources[name] : undefined;
    if (config === undefined) throw invalid(ctx, `fixtures.${name}: the policy has no source \`${name}\``);
    if (typeof file === "string" && RECORDED.test(file)) continue; // replayed, see recordings()
    if (typeof file !== "string" || !/\.(sql|db|sqlite3?)$/.test(file))
      throw invalid(ctx, `fixtures.${name}: expected a \`.sql\` or \`.db\` file, or a \`.recorded.json\` recording`);
    if (config.kind !== "sqlite")
      throw invalid(
        ctx,
        `fixtures.${name}: source \`${name}\` is a ${config.kind} source; \`.sql\` and \`.db\` fixtures replace sqlite sources`,
      );
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
      throw invalid(
        ctx,
        `fixtures.${name}: cannot build \`${file}\` (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`,
      );
    }
    sources[name] = { ...config, path: to };
  }
  return { ...policy, sources };
}

/** A request no recording answers; the case fails with it whatever the decision was. */
interface Miss {
  readonly source: string;
  readonly values: string;
}

/** Load the `*.recorded.json` fixtures, checked against the policy's source kinds up front. */
async function recordings(
  policy: Policy,
  fixtures: Record<string, unknown>,
  ctx: CaseContext,
): Promise<Map<string, RecordingFile>> {
  const out = new Map<string, RecordingFile>();
  for (const [name, file] of Object.entries(fixtures)) {
    if (typeof file !== "string" || !RECORDED.test(file)) continue;
    const config = Object.hasOwn(policy.sources, name) ? policy.sources[name]! : undefined;
    if (config === undefined) throw invalid(ctx, `fixtures.${name}: the policy has no source \`${name}\``);
    let recording: RecordingFile;
    try {
      recording = await loadRecording(resolve(ctx.dir, file));
    } catch (err) {
      throw invalid(
        ctx,
        `fixtures.${name}: ${err instanceof TesseraError ? err.message : String(err)}${err instanceof TesseraError && err.path !== undefined ? ` at ${err.path}` : ""}`,
      );
    }
    if (recording.kind !== config.kind)
      throw invalid(
        ctx,
        `fixtures.${name}: \`${file}\` records a ${recording.kind} source; source \`${name}\` is a ${config.kind} source`,
      );
    out.set(name, recording);
  }
  return out;
}

/** Replay recorded sources, open the others as usual, and note every unrecorded request. */
function replayOpener(policy: Policy, recorded: ReadonlyMap<string, RecordingFile>, misses: Miss[]): OpenSource {
  const live = registryOpener(policy);
  return async (name, config) => {
    const recording = recorded.get(name);
    if (recording === undefined) return live(name, config);
    const timeout = (config as { timeout_ms?: unknown }).timeout_ms;
    const inner = createRecordedSource(name, recording, typeof timeout === "number" ? timeout : DEFAULT_TIMEOUT_MS);
    const source: Source = {
      kind: inner.kind,
      timeoutMs: inner.timeoutMs,
      prepare(request) {
        const prepared = inner.prepare(request);
        return {
          parameters: prepared.parameters,
          async run(params, signal) {
            try {
              return await prepared.run(params, signal);
            } catch (err) {
              // createRecordedSource's own miss, not a recorded source_unreachable
              if (
                err instanceof SourceError &&
                err.code === "source_unreachable" &&
                err.message.endsWith("no recorded response for this request")
              ) {
                misses.push({
                  source: name,
                  values: JSON.stringify(plain(Object.fromEntries(prepared.parameters.map((p) => [p, params[p]])))),
                });
              }
              throw err;
            }
          },
        };
      },
      close: () => inner.close(),
    };
    return source;
  };
}

/** `live:` names resolved: the environment to load the policy with, or why the case cannot run. */
type LiveEnv =
  | { readonly env: Record<string, string | undefined>; readonly defaulted: ReadonlySet<string> }
  | { readonly stop: CaseOutcome };

function liveEnv(doc: CaseDoc, ctx: CaseContext, env: Record<string, string | undefined>): LiveEnv {
  if (doc.live === undefined) return { env, defaulted: new Set() };
  if (
    !Array.isArray(doc.live) ||
    doc.live.length === 0 ||
    doc.live.some((v) => typeof v !== "string" || !/^[A-Z_][A-Z0-9_]*$/.test(v))
  ) {
    throw invalid(ctx, "live: expected a list of environment variable names, e.g. `[TESSERA_PG_URL]`");
  }
  const out = { ...env };
  const defaulted = new Set<string>();
  for (const name of doc.live as string[]) {
    if (out[name] !== undefined && out[name] !== "") continue;
    if (env.TESSERA_REQUIRE_LIVE === "1") {
      return {
        stop: {
          passed: false,
          failures: [`live: \`${name}\` is not set, and TESSERA_REQUIRE_LIVE=1 requires the live server`],
        },
      };
    }
    const fallback = Object.hasOwn(LIVE_DEFAULTS, name) ? LIVE_DEFAULTS[name] : undefined;
    if (fallback === undefined) return { stop: { passed: true, failures: [], skipped: `\`${name}\` is not set` } };
    out[name] = fallback;
    defaulted.add(name);
  }
  return { env: out, defaulted };
}

/** Run `setup_sql` files against their sources' servers, one at a time across processes (a lock). */
async function runSetup(
  policy: Policy,
  setup: Record<string, unknown>,
  ctx: CaseContext,
  defaulted: ReadonlySet<string>,
): Promise<CaseOutcome | null> {
  for (const [name, file] of Object.entries(setup)) {
    const config = Object.hasOwn(policy.sources, name) ? policy.sources[name]! : undefined;
    if (config === undefined) throw invalid(ctx, `setup_sql.${name}: the policy has no source \`${name}\``);
    if (config.kind !== "postgres" && config.kind !== "mysql")
      throw invalid(
        ctx,
        `setup_sql.${name}: source \`${name}\` is a ${config.kind} source; setup_sql runs on postgres and mysql sources`,
      );
    if (typeof file !== "string" || !file.endsWith(".sql"))
      throw invalid(ctx, `setup_sql.${name}: expected a \`.sql\` file`);
    let sql: string;
    try {
      sql = readFileSync(resolve(ctx.dir, file), "utf8");
    } catch {
      throw invalid(ctx, `setup_sql.${name}: cannot read \`${file}\``);
    }
    const url = (config as { url: string }).url;
    const step = config.kind === "postgres" ? await setupPostgres(url, sql) : await setupMysql(url, sql);
    if (step === "ok") continue;
    const [stage, why] = step;
    if (stage === "sql") throw invalid(ctx, `setup_sql.${name}: \`${file}\` failed (${why})`);
    const variable = Array.from(defaulted).find((v) => LIVE_DEFAULTS[v] === url);
    if (variable !== undefined)
      return {
        passed: true,
        failures: [],
        skipped: `\`${variable}\` is not set and no server answers at its local default (${why})`,
      };
    return {
      passed: false,
      failures: [`setup_sql.${name}: cannot reach the ${config.kind} server of source \`${name}\` (${why})`],
    };
  }
  return null;
}

const firstLine = (err: unknown): string =>
  (err instanceof Error ? err.message.split("\n")[0]! : String(err)) || "connection failed";

async function setupPostgres(url: string, sql: string): Promise<"ok" | ["connect" | "sql", string]> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    return ["connect", firstLine(err)];
  }
  try {
    // one transaction under a lock, so concurrent runs never see a half-built table
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext('tessera-case-setup'))");
    await client.query(sql);
    await client.query("COMMIT");
    return "ok";
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    return ["sql", firstLine(err)];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function setupMysql(url: string, sql: string): Promise<"ok" | ["connect" | "sql", string]> {
  const { default: mysql } = await import("mysql2/promise");
  let conn;
  try {
    conn = await mysql.createConnection({ uri: url, connectTimeout: 5000, multipleStatements: true });
  } catch (err) {
    return ["connect", firstLine(err)];
  }
  try {
    await conn.query("SELECT GET_LOCK('tessera-case-setup', 30)");
    await conn.query(sql);
    return "ok";
  } catch (err) {
    return ["sql", firstLine(err)];
  } finally {
    await conn.query("SELECT RELEASE_LOCK('tessera-case-setup')").catch(() => undefined);
    await conn.end().catch(() => undefined);
  }
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
    if (doc.fixtures !== undefined && !isObject(doc.fixtures))
      throw invalid(ctx, "fixtures: expected a mapping of source name to file");
    if (doc.env !== undefined && (!isObject(doc.env) || Object.values(doc.env).some((v) => typeof v !== "string")))
      throw invalid(ctx, "env: expected a mapping of names to strings");
    if (doc.setup_sql !== undefined && !isObject(doc.setup_sql))
      throw invalid(ctx, "setup_sql: expected a mapping of source name to `.sql` file");
    if (doc.setup_sql !== undefined && doc.live === undefined)
      throw invalid(ctx, "setup_sql: a case with setup_sql names its servers' variables in `live:`");
    const live = liveEnv(doc, ctx, { ...ctx.env, ...((doc.env as Record<string, string> | undefined) ?? {}) });
    if ("stop" in live) return live.stop;
    const env = live.env;
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
      const recorded =
        tmp !== null
          ? await recordings(policy, doc.fixtures as Record<string, unknown>, ctx)
          : new Map<string, RecordingFile>();
      if (tmp !== null) policy = await buildFixtures(policy, doc.fixtures as Record<string, unknown>, ctx, tmp);
      if (doc.setup_sql !== undefined) {
        const stop = await runSetup(policy, doc.setup_sql as Record<string, unknown>, ctx, live.defaulted);
        if (stop !== null) return stop;
      }
      const { audit: _audit, ...quiet } = policy; // replaying a case never writes the policy's audit log
      const misses: Miss[] = [];
      const gate =
        recorded.size > 0
          ? createGate(quiet, { openSource: replayOpener(quiet, recorded, misses) })
          : createGate(quiet);
      try {
        got = plain(
          await gate.check(
            doc.call as never,
            (doc.context as Record<string, unknown> | undefined) ?? {},
            doc.explain === "values" ? { explain: "values" } : {},
          ),
        );
      } catch (err) {
        got = errorShape(err);
      } finally {
        await gate.close();
      }
      const result = outcome(doc.want, got);
      if (misses.length === 0) return result;
      const unrecorded = misses.map(
        (m) => `source \`${m.source}\`: no recorded response for ${m.values}; re-record the fixture`,
      );
      return { passed: false, failures: [...unrecorded, ...result.failures], got };
    } finally {
      if (tmp !== null) rmSync(tmp, { recursive: true, force: true });
    }
  },
};

function outcome(want: unknown, got: unknown): CaseOutcome {
  const failures = compareWant(want, got);
  return { passed: failures.length === 0, failures, got };
}
