/**
 * Live `check` cases: `live:` names the environment variables holding server URLs, and
 * `setup_sql: {<source>: file.sql}` builds their tables before the call is checked (adr/0040).
 * @module
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Policy } from "../../../checks/policy.js";
import type { CaseContext, CaseOutcome } from "../../types.js";
import { invalidCase } from "./case.js";

/** Local servers a live case falls back to when its variable is unset and live servers are not required. */
export const LIVE_DEFAULTS: Readonly<Record<string, string>> = {
  TESSERA_PG_URL: "postgres://postgres@127.0.0.1:5432/test",
  TESSERA_MYSQL_URL: "mysql://root@127.0.0.1:3306/test",
};

/** `live:` resolved: the environment to load the policy with, or why the case cannot run. */
export type LiveEnv =
  | { readonly env: Record<string, string | undefined>; readonly defaulted: ReadonlySet<string> }
  | { readonly stop: CaseOutcome };

/** The environment for a case naming `live` variables: set, defaulted to a local server, or a stop. */
export function liveEnv(live: readonly string[] | undefined, env: Record<string, string | undefined>): LiveEnv {
  if (live === undefined) return { env, defaulted: new Set() };
  const out = { ...env };
  const defaulted = new Set<string>();
  for (const name of live) {
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
export async function runSetup(
  policy: Policy,
  setup: Readonly<Record<string, unknown>>,
  ctx: CaseContext,
  defaulted: ReadonlySet<string>,
): Promise<CaseOutcome | null> {
  for (const [name, file] of Object.entries(setup)) {
    const config = Object.hasOwn(policy.sources, name) ? policy.sources[name]! : undefined;
    if (config === undefined) throw invalidCase(ctx, `setup_sql.${name}: the policy has no source \`${name}\``);
    if (config.kind !== "postgres" && config.kind !== "mysql") {
      throw invalidCase(
        ctx,
        `setup_sql.${name}: source \`${name}\` is a ${config.kind} source; setup_sql runs on postgres and mysql sources`,
      );
    }
    if (typeof file !== "string" || !file.endsWith(".sql")) {
      throw invalidCase(ctx, `setup_sql.${name}: expected a \`.sql\` file`);
    }
    let sql: string;
    try {
      sql = readFileSync(resolve(ctx.dir, file), "utf8");
    } catch {
      throw invalidCase(ctx, `setup_sql.${name}: cannot read \`${file}\``);
    }
    const step = config.kind === "postgres" ? await setupPostgres(config.url, sql) : await setupMysql(config.url, sql);
    if (step === "ok") continue;
    const [stage, why] = step;
    if (stage === "sql") throw invalidCase(ctx, `setup_sql.${name}: \`${file}\` failed (${why})`);
    const variable = Array.from(defaulted).find((v) => LIVE_DEFAULTS[v] === config.url);
    if (variable !== undefined) {
      return {
        passed: true,
        failures: [],
        skipped: `\`${variable}\` is not set and no server answers at its local default (${why})`,
      };
    }
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
  let conn: Awaited<ReturnType<typeof mysql.createConnection>>;
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
