/**
 * The MySQL / MariaDB Source (`mysql2`): `%(name)s` placeholders become server-side prepared
 * statements (`execute`), every request runs in `START TRANSACTION READ ONLY … ROLLBACK` on a
 * pooled connection that is itself read-only, bounded by `max_statement_time` (MariaDB) or
 * `max_execution_time` (MySQL). A bound value the server converted implicitly (`'1001abc'`
 * compared with an INT) fails the request instead of matching another row (adr/0011).
 * @module
 */
import mysql from "mysql2/promise";
import type {
  PreparedRequest,
  RequestDescription,
  Source,
  SourceInit,
  SourceResult,
  SqlRequest,
} from "../checks/source.js";
import { SourceError } from "../checks/source.js";
import { errnoOf, scalarRows, SessionPool, runHeld, UNREACHABLE_ERRNO, watchSession } from "./adapter-util.js";
import type { SourceConfigOf } from "../checks/source-config.js";
import { sourceConfig } from "./config.js";
import { compileSql } from "./sql-placeholders.js";

const LONGLONG = 8;
/** Ends a request and opens the next one's transaction in the same round trip. */
const NEXT = "ROLLBACK; START TRANSACTION READ ONLY";
/** Server warnings that mean a value was converted with loss: truncated, incorrect or out of range. */
const CONVERSION_WARNINGS: ReadonlySet<number> = new Set([1265, 1292, 1264, 1366, 1367, 1411, 1918]);
const TIMEOUT_ERRNO: ReadonlySet<number> = new Set([1969, 3024, 1317, 1028]);
const AUTH_ERRNO: ReadonlySet<number> = new Set([1045, 1044, 1698, 1251, 1142, 1143, 1227, 1370]);
const INVALID_ERRNO: ReadonlySet<number> = new Set([
  1064, 1146, 1054, 1210, 1295, 1149, 1305, 1582, 1583, 1241, 1052, 1109, 1222, 1060, 1066, 1248, 1615, 1193,
]);

/**
 * Map a `mysql2` failure to the shared codes. Server messages are kept only for query errors,
 * which describe the policy's SQL; other messages may quote a bound value and are dropped.
 */
export function mapMysqlError(source: string, err: unknown): SourceError {
  if (err instanceof SourceError) return err;
  const e = (err ?? {}) as { errno?: unknown; code?: unknown; sqlState?: unknown; message?: unknown };
  const where = `source \`${source}\``;
  const errno = typeof e.errno === "number" && typeof e.sqlState === "string" ? e.errno : undefined;
  if (errno !== undefined) {
    const state = String(e.sqlState);
    if (TIMEOUT_ERRNO.has(errno)) return new SourceError("source_timeout", `${where}: statement timed out (${errno})`);
    if (AUTH_ERRNO.has(errno) || state.startsWith("28"))
      return new SourceError("source_auth_failed", `${where}: access denied (${errno})`);
    if (errno === 1792 || state === "25006")
      return new SourceError(
        "source_invalid_query",
        `${where}: the query tried to write in a read-only transaction (${errno})`,
      );
    if (INVALID_ERRNO.has(errno) || state.startsWith("42")) {
      const msg = String(e.message ?? "").split("\n")[0];
      return new SourceError("source_invalid_query", `${where}: invalid query (${errno}): ${msg}`);
    }
    if (state.startsWith("22"))
      return new SourceError(
        "source_invalid_query",
        `${where}: a bound value does not fit the query's types (${errno})`,
      );
    if (errno === 1049) return new SourceError("source_unreachable", `${where}: database does not exist (1049)`);
    // too many connections, shutdown, lost, gone away, killed (MariaDB), disconnected for inactivity (MySQL 8)
    if (errno === 1040 || errno === 1053 || errno === 2013 || errno === 2006 || errno === 1927 || errno === 4031)
      return new SourceError("source_unreachable", `${where}: connection failure (${errno})`);
    return new SourceError("source_server_error", `${where}: server error (${errno})`);
  }
  const code = typeof e.code === "string" ? e.code : "";
  const errnoCode = errnoOf(err);
  if (code === "ETIMEDOUT" || errnoCode === "ETIMEDOUT")
    return new SourceError("source_timeout", `${where}: connection timed out`);
  if (errnoCode !== undefined && UNREACHABLE_ERRNO.has(errnoCode))
    return new SourceError("source_unreachable", `${where}: cannot connect (${errnoCode})`);
  if (
    code === "PROTOCOL_CONNECTION_LOST" ||
    code === "PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR" ||
    code === "ER_CON_COUNT_ERROR"
  ) {
    return new SourceError("source_unreachable", `${where}: connection lost`);
  }
  if (
    code.startsWith("PROTOCOL_") ||
    code === "ERR_OUT_OF_RANGE" ||
    code === "ERR_BUFFER_OUT_OF_BOUNDS" ||
    err instanceof RangeError ||
    code.startsWith("HANDSHAKE_") ||
    /malformed|unexpected packet|packets out of order|protocol/i.test(String(e.message ?? ""))
  ) {
    return new SourceError("source_malformed_response", `${where}: the server's reply is not the mysql protocol`);
  }
  return new SourceError("source_server_error", `${where}: request failed`);
}

class MysqlSource implements Source<SqlRequest> {
  readonly kind = "mysql";
  readonly timeoutMs: number;
  readonly #name: string;
  readonly #sessions: SessionPool<mysql.Pool>;
  readonly #ready = new WeakSet<object>();

  constructor(init: SourceInit<"mysql">, config: SourceConfigOf<"mysql">) {
    this.#name = init.name;
    this.timeoutMs = config.timeout_ms;
    const pool = mysql.createPool({
      uri: config.url,
      connectionLimit: config.pool_size,
      connectTimeout: this.timeoutMs,
      // our own statements only: the policy's SQL always goes through execute(), one statement
      multipleStatements: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      dateStrings: true,
      maxIdle: 4,
      idleTimeout: 60_000,
    });
    // the server may end any session, idle or held by a request (adr/0063)
    pool.on("connection", (c) => watchSession(c as unknown as Parameters<typeof watchSession>[0]));
    this.#sessions = new SessionPool(init.name, pool);
  }

  prepare(request: SqlRequest): PreparedRequest {
    const sql = compileSql(this.#name, request.query, "mysql");
    // mysql2 sends numbers as DOUBLE, booleans as TINY, strings as strings, a bigint as its digits
    return {
      parameters: sql.parameters,
      run: async (params, signal) => this.#run(sql.text, sql.values(params), signal),
    };
  }

  /**
   * Once per pooled connection: read-only by default, the statement timeout, and the first
   * request's `START TRANSACTION READ ONLY`. Each request then ends with `ROLLBACK; START
   * TRANSACTION READ ONLY`, so the next request's transaction costs no extra round trip
   * (adr/0012). A connection in the pool is always inside a fresh, empty read-only transaction.
   */
  async #init(conn: mysql.PoolConnection): Promise<void> {
    const core = (conn as unknown as { connection: { _isMariaDB?: boolean } }).connection;
    if (this.#ready.has(core)) return;
    const timeout =
      core._isMariaDB === true
        ? `SET SESSION max_statement_time = ${(this.timeoutMs / 1000).toFixed(3)}`
        : `SET SESSION max_execution_time = ${this.timeoutMs}`;
    await conn.query(`SET SESSION TRANSACTION READ ONLY; ${timeout}; START TRANSACTION READ ONLY`);
    this.#ready.add(core);
  }

  async #run(text: string, values: (string | number | boolean | null)[], signal: AbortSignal): Promise<SourceResult> {
    const held = this.#sessions.hold<mysql.PoolConnection>();
    const work = (async (): Promise<SourceResult> => {
      const c = await this.#sessions.pool.getConnection();
      held.conn = c;
      held.session = (c as unknown as { connection: object }).connection;
      if (held.aborted) {
        c.destroy();
        throw new SourceError("source_timeout", "aborted");
      }
      await this.#init(c);
      let result: [unknown[][], mysql.FieldPacket[]] | undefined;
      let failure: unknown;
      let failed = false;
      try {
        // rows as arrays: keyed by name, a column named twice would keep one value silently
        result = (await c.execute({ sql: text, rowsAsArray: true }, values)) as unknown as [
          unknown[][],
          mysql.FieldPacket[],
        ];
      } catch (err) {
        failure = err;
        failed = true;
      }
      let after: mysql.RowDataPacket[][] | undefined;
      try {
        // warnings describe the statement just run, so read them before the rollback
        [after] = await c.query<mysql.RowDataPacket[][]>(failed ? NEXT : `SHOW WARNINGS; ${NEXT}`);
      } catch (err) {
        // without the rollback the session is unusable, and without the warnings a result cannot
        // be trusted; the statement's own failure says more
        if (!failed) failure = err;
        failed = true;
      }
      held.conn = undefined;
      // a statement without a result set (SET, COMMIT, …) may have changed the session: never reuse it
      if (failed ? after === undefined : !Array.isArray(result![1])) c.destroy();
      else c.release();
      if (failed || result === undefined) throw failure;
      const warnings = Array.isArray(after) && Array.isArray(after[0]) ? (after[0] as mysql.RowDataPacket[]) : [];
      if (warnings.some((w) => CONVERSION_WARNINGS.has(Number(w.Code)))) {
        throw new SourceError(
          "source_invalid_query",
          `source \`${this.#name}\`: the database converted a bound value implicitly; refusing a result that may belong to another value`,
        );
      }
      const [raw, fields] = result;
      if (!Array.isArray(raw) || !Array.isArray(fields)) {
        throw new SourceError("source_invalid_query", `source \`${this.#name}\`: the query returned no result set`);
      }
      const columns = fields.map((f) => f.name);
      const big = fields.map((f) => f.columnType === LONGLONG);
      const rows = scalarRows(this.#name, columns, raw, (v, i) => (big[i] && typeof v === "string" ? BigInt(v) : v));
      return { rows, columns };
    })();
    return runHeld(this.#name, signal, held, work, (c) => c.destroy(), mapMysqlError);
  }

  /** COM_STMT_PREPARE answers the statement's column definitions; the statement is closed unexecuted. */
  async describe(request: SqlRequest): Promise<RequestDescription> {
    const sql = compileSql(this.#name, request.query, "mysql");
    this.#sessions.hold(); // source_unreachable once closed
    let c: mysql.PoolConnection;
    try {
      c = await this.#sessions.pool.getConnection();
    } catch (err) {
      throw mapMysqlError(this.#name, err);
    }
    try {
      await this.#init(c);
      const prepared = await c.prepare(sql.text);
      const fields = (prepared as unknown as { statement: { columns?: { name: string }[] } }).statement.columns ?? [];
      await prepared.close();
      return { columns: fields.map((f) => f.name), checked: "prepared on the server, never executed" };
    } catch (err) {
      throw mapMysqlError(this.#name, err);
    } finally {
      c.release();
    }
  }

  close(): Promise<void> {
    return this.#sessions.end();
  }
}

/** Factory for `kind: mysql` sources (MySQL and MariaDB). */
export async function createMysqlSource(init: SourceInit<"mysql">): Promise<Source<SqlRequest>> {
  return new MysqlSource(init, await sourceConfig("mysql", init));
}
