/**
 * The SQLite Source (better-sqlite3): the database opens read-only, queries bind `:name`
 * parameters, each check's statement is prepared once. better-sqlite3 runs queries synchronously
 * and cannot interrupt one; adr/0005 records what bounds a query instead.
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Scalar } from "../core/index.js";
import { canonicalNumber } from "../core/numbers.js";
import { placeholdersOf } from "../checks/requests.js";
import type { PreparedRequest, Source, SourceInit, SourceResult, SqlRequest } from "../checks/source.js";
import { SourceError } from "../checks/source.js";
import { MAX_ROWS, scalarRows, uniqueColumns } from "./adapter-util.js";
import { sourceConfig } from "./config.js";

/** Rows one request may return before it is cut off as a malformed answer (adr/0005). */
export const SQLITE_MAX_ROWS = MAX_ROWS;

function bindable(v: Scalar): string | number | bigint | null {
  if (typeof v === "boolean") return v ? 1 : 0; // SQLite has no boolean; 1/0 is what it stores
  // better-sqlite3 binds every number as REAL; a whole number goes as INTEGER so a TEXT column
  // holding '1001' matches 1001, as String(number) === string does in the match semantics
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  // a number and its one canonical spelling (`1009`, `"1009"`) bind alike, so an expression without
  // type affinity (json_extract, a view, COALESCE) cannot tell them apart: adr/0103
  if (typeof v === "string") {
    const n = canonicalNumber(v);
    if (n !== null) return Number.isSafeInteger(n) ? BigInt(n) : n;
  }
  return v;
}

// integers arrive as bigint (lossless); the safe ones become numbers for readable explanations
const fromSqlite = (v: unknown): unknown =>
  typeof v === "bigint" && v >= Number.MIN_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v;

/**
 * The binding names of a query, checked as policy lint checks it: the loader's names when it did,
 * else a scan of the query, any error in it `source_invalid_query`.
 */
function parametersOf(request: SqlRequest): readonly string[] {
  if (request.placeholders !== undefined) return request.placeholders;
  const scan = placeholdersOf("sqlite", request);
  const problem = scan.problems.find((p) => p.severity === "error");
  if (problem !== undefined) throw new SourceError("source_invalid_query", problem.message);
  return scan.names;
}

/** Open a SQLite database read-only as a Source. `config.path` must name an existing file. */
export async function openSqlite(init: SourceInit<"sqlite">): Promise<Source<SqlRequest>> {
  const config = await sourceConfig("sqlite", init);
  const path = isAbsolute(config.path) ? config.path : resolve(init.baseDir, config.path);
  const timeoutMs = config.timeout_ms;
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: timeoutMs });
    db.pragma("query_only = ON");
  } catch (err) {
    const why =
      err instanceof Error && /exist|unable to open/i.test(err.message)
        ? "no such database file"
        : "cannot open the database";
    throw new SourceError("source_unreachable", `sqlite source \`${init.name}\`: ${why} \`${path}\``, { cause: err });
  }
  let closed = false;

  function prepare(request: SqlRequest): PreparedRequest {
    const parameters = parametersOf(request);
    let stmt: Database.Statement;
    try {
      stmt = db.prepare(request.query);
    } catch (err) {
      const message = err instanceof Error ? err.message.split("\n")[0]! : String(err);
      throw new SourceError("source_invalid_query", `sqlite source \`${init.name}\`: ${message}`, { cause: err });
    }
    if (!stmt.reader || !stmt.readonly)
      throw new SourceError(
        "source_invalid_query",
        `sqlite source \`${init.name}\`: the query must be a read-only statement that returns rows`,
      );
    stmt.safeIntegers(true);
    // rows as arrays: keyed by name, a column named twice would keep one value silently
    stmt.raw(true);
    const columns = uniqueColumns(
      init.name,
      stmt.columns().map((c) => c.name),
    );
    const runSync = (params: Readonly<Record<string, Scalar>>): SourceResult => {
      if (closed) throw new SourceError("source_unreachable", `sqlite source \`${init.name}\` is closed`);
      const bound: Record<string, string | number | bigint | null> = {};
      for (const name of parameters) bound[name] = bindable(params[name] ?? null);
      const started = Date.now();
      let raw: unknown[][];
      try {
        raw = stmt.all(bound) as unknown[][];
      } catch (err) {
        const message = err instanceof Error ? err.message.split("\n")[0]! : String(err);
        const code = /busy|locked/i.test(message) ? "source_timeout" : "source_server_error";
        throw new SourceError(code, `sqlite source \`${init.name}\`: ${message}`, { cause: err });
      }
      // a statement cannot be interrupted mid-step (adr/0005): an answer that came too late, or
      // too large, still fails closed
      if (Date.now() - started > timeoutMs) throw new SourceError("source_timeout", `no answer within ${timeoutMs} ms`);
      if (raw.length > SQLITE_MAX_ROWS)
        throw new SourceError(
          "source_malformed_response",
          `sqlite source \`${init.name}\` returned more than ${SQLITE_MAX_ROWS} rows`,
        );
      return { rows: scalarRows(init.name, columns, raw, fromSqlite), columns };
    };
    return {
      parameters,
      runSync,
      async run(params, signal): Promise<SourceResult> {
        if (signal.aborted) throw new SourceError("source_timeout", `no answer within ${timeoutMs} ms`);
        return runSync(params);
      },
    };
  }

  return {
    kind: "sqlite",
    timeoutMs,
    prepare,
    // preparing compiles the statement against the schema (a missing table or column fails it)
    async describe(request) {
      prepare(request);
      const columns = db
        .prepare(request.query!)
        .columns()
        .map((c) => c.name);
      return { columns, checked: "prepared on the read-only database" };
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/**
 * Tables a query reads by a full scan, from SQLite's own query plan (`EXPLAIN QUERY PLAN`), for
 * `tessera policy lint`: on a large table every decision pays for the scan (adr/0005). Throws
 * when the database cannot be opened or the query cannot be prepared.
 */
export function sqliteFullScans(path: string, query: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const names = placeholdersOf("sqlite", { query }).names;
    const params: Record<string, null> = {};
    for (const n of names) params[n] = null;
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(params) as { detail: string }[];
    const scans: string[] = [];
    for (const { detail } of plan) {
      const m = /^SCAN (\S+)$/.exec(detail);
      if (m !== null && !scans.includes(m[1]!)) scans.push(m[1]!);
    }
    return scans;
  } finally {
    db.close();
  }
}
