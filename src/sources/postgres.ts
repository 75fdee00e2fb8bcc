/**
 * The Postgres Source (`pg`): `%(name)s` placeholders become `$n`, every request runs in its own
 * `BEGIN READ ONLY … ROLLBACK` on a pooled connection that is itself read-only by default, with
 * `statement_timeout` and a connection timeout from the source's `timeout_ms`.
 * @module
 */
import pg from "pg";
import type {
  PreparedRequest,
  RequestDescription,
  Source,
  SourceInit,
  SourceResult,
  SqlRequest,
} from "../checks/source.js";
import { SourceError } from "../checks/source.js";
import type { Scalar } from "../core/index.js";
import { sha256Hex } from "../platform/digest.js";
import { errnoOf, scalarRows, SessionPool, runHeld, UNREACHABLE_ERRNO, watchSession } from "./adapter-util.js";
import type { SourceConfigOf } from "../checks/source-config.js";
import { sourceConfig } from "./config.js";
import { type CompiledSql, compileSql } from "./sql-placeholders.js";

const INT8 = 20;
// dates and times stay the server's text so they compare as strings, the same on every run
const AS_TEXT: ReadonlySet<number> = new Set([1082, 1083, 1114, 1184, 1186, 1266]);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** int8 as a number when it is exact, else a bigint; dates as text; the rest as `pg` parses them. */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary"): (v: string) => unknown {
    if (oid === INT8 && format !== "binary") {
      return (v: string) => {
        const b = BigInt(v);
        return b >= MIN_SAFE && b <= MAX_SAFE ? Number(b) : b;
      };
    }
    if (AS_TEXT.has(oid) && format !== "binary") return (v: string) => v;
    return pg.types.getTypeParser(oid, format ?? "text") as (v: string) => unknown;
  },
};

/**
 * Map a `pg` failure to the shared codes. Server messages are kept only for query errors (class
 * 42), which describe the policy's SQL; other messages may quote a bound value and are dropped.
 */
export function mapPgError(source: string, err: unknown): SourceError {
  if (err instanceof SourceError) return err;
  const sqlstate = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : "";
  const where = `source \`${source}\``;
  if (/^[0-9A-Z]{5}$/.test(sqlstate)) {
    if (sqlstate === "57014") return new SourceError("source_timeout", `${where}: statement timed out (57014)`);
    if (sqlstate.startsWith("28"))
      return new SourceError("source_auth_failed", `${where}: authentication failed (${sqlstate})`);
    if (sqlstate === "42501") return new SourceError("source_auth_failed", `${where}: permission denied (42501)`);
    if (sqlstate === "25006")
      return new SourceError(
        "source_invalid_query",
        `${where}: the query tried to write in a read-only transaction (25006)`,
      );
    if (sqlstate.startsWith("42")) {
      const msg = String((err as { message?: unknown }).message ?? "").split("\n")[0];
      return new SourceError("source_invalid_query", `${where}: invalid query (${sqlstate}): ${msg}`);
    }
    if (sqlstate.startsWith("22"))
      return new SourceError(
        "source_invalid_query",
        `${where}: a bound value does not fit the query's types (${sqlstate})`,
      );
    if (sqlstate === "3D000") return new SourceError("source_unreachable", `${where}: database does not exist (3D000)`);
    // class 08, and the server ending the session: shutdown, crash, a kill, an idle or idle-in-transaction timeout
    if (sqlstate.startsWith("08") || sqlstate.startsWith("57P") || sqlstate === "25P03")
      return new SourceError("source_unreachable", `${where}: connection failure (${sqlstate})`);
    return new SourceError("source_server_error", `${where}: server error (${sqlstate})`);
  }
  const errno = errnoOf(err);
  if (errno === "ETIMEDOUT") return new SourceError("source_timeout", `${where}: connection timed out (ETIMEDOUT)`);
  if (errno !== undefined && UNREACHABLE_ERRNO.has(errno))
    return new SourceError("source_unreachable", `${where}: cannot connect (${errno})`);
  const text = String((err as { message?: unknown })?.message ?? "");
  if (/^received invalid response|^unknown authenticationok|^binary mode not supported/i.test(text)) {
    return new SourceError("source_malformed_response", `${where}: the server's reply is not the postgres protocol`);
  }
  if (/timeout|timed out/i.test(text)) return new SourceError("source_timeout", `${where}: connection timed out`);
  if (/terminated|ended|closed|not queryable/i.test(text))
    return new SourceError("source_unreachable", `${where}: connection lost`);
  return new SourceError("source_server_error", `${where}: request failed`);
}

/**
 * A `pg` submittable that sends Parse, Describe (statement) and Sync for the unnamed statement:
 * the server plans the query's names and types and answers its row description, and no Bind or
 * Execute is ever sent, so the query does not run (adr/0127).
 */
class DescribeOnly {
  readonly #text: string;
  #columns: string[] = [];
  #resolve!: (columns: string[]) => void;
  #reject!: (err: unknown) => void;
  readonly #done: Promise<string[]>;

  constructor(text: string) {
    this.#text = text;
    this.#done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  submit(connection: {
    parse(q: { text: string; name: string; types: number[] }): void;
    describe(q: { type: "S"; name: string }): void;
    sync(): void;
  }): void {
    connection.parse({ text: this.#text, name: "", types: [] });
    connection.describe({ type: "S", name: "" });
    connection.sync();
  }

  handleRowDescription(msg: { fields: { name: string }[] }): void {
    this.#columns = msg.fields.map((f) => f.name);
  }

  handleError(err: unknown): void {
    this.#reject(err);
  }

  handleReadyForQuery(): void {
    this.#resolve(this.#columns);
  }

  // the client calls these only for messages a describe never gets; answer them harmlessly
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  /** The column names, once the server answered (rejects with the server's error). */
  get columns(): Promise<string[]> {
    return this.#done;
  }
}

class PostgresSource implements Source<SqlRequest> {
  readonly kind = "postgres";
  readonly timeoutMs: number;
  readonly #name: string;
  readonly #sessions: SessionPool<pg.Pool>;

  constructor(init: SourceInit<"postgres">, config: SourceConfigOf<"postgres">) {
    this.#name = init.name;
    this.timeoutMs = config.timeout_ms;
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.pool_size,
      connectionTimeoutMillis: this.timeoutMs,
      statement_timeout: this.timeoutMs,
      idle_in_transaction_session_timeout: Math.max(this.timeoutMs * 2, 1000),
      application_name: "tessera",
      // defence in depth: a statement outside our BEGIN READ ONLY is still read-only
      options: "-c default_transaction_read_only=on",
      allowExitOnIdle: true,
      types,
    });
    // the server may end any session, idle (the pool drops it) or held by a request (adr/0063)
    pool.on("error", () => undefined);
    pool.on("connect", (client) => watchSession(client));
    this.#sessions = new SessionPool(init.name, pool);
  }

  prepare(request: SqlRequest): PreparedRequest {
    const sql = compileSql(this.#name, request.query, "postgres");
    const statement = `tessera_${sha256Hex(sql.text).slice(0, 24)}`;
    // `pg` sends every value as text, so a bigint keeps every digit
    return { parameters: sql.parameters, run: async (params, signal) => this.#run(statement, sql, params, signal) };
  }

  async #run(
    statement: string,
    sql: CompiledSql,
    params: Readonly<Record<string, Scalar>>,
    signal: AbortSignal,
  ): Promise<SourceResult> {
    const { text } = sql;
    const values = sql.values(params);
    const held = this.#sessions.hold<pg.PoolClient>();
    const work = (async (): Promise<SourceResult> => {
      const c = await this.#sessions.pool.connect();
      held.conn = c;
      held.session = c;
      if (held.aborted) {
        c.release(true);
        throw new SourceError("source_timeout", "aborted");
      }
      let result: pg.QueryArrayResult<unknown[]> | undefined;
      let failure: unknown;
      let failed = false;
      try {
        await c.query("BEGIN READ ONLY");
        try {
          result = await c.query<unknown[]>({ name: statement, text, values, rowMode: "array" });
        } catch (err) {
          failure = err;
          failed = true;
        }
        await c.query("ROLLBACK");
      } catch (err) {
        // BEGIN or ROLLBACK failed: the session is unusable, and the statement's own failure says more
        if (!failed) failure = err;
        failed = true;
        held.conn = undefined;
        c.release(true);
      }
      if (held.conn !== undefined) {
        // rolled back, the session is clean again, unless a statement other than SELECT (SET,
        // COMMIT, …) changed it: never reuse that one
        held.conn = undefined;
        c.release(result !== undefined && result.command !== "SELECT");
      }
      if (failed || result === undefined) throw failure;
      const columns = result.fields.map((f) => f.name);
      return { rows: scalarRows(this.#name, columns, result.rows), columns };
    })();
    return runHeld(this.#name, signal, held, work, (c) => c.release(true), mapPgError);
  }

  async describe(request: SqlRequest): Promise<RequestDescription> {
    const sql = compileSql(this.#name, request.query, "postgres");
    this.#sessions.hold(); // source_unreachable once closed
    let c: pg.PoolClient;
    try {
      c = await this.#sessions.pool.connect();
    } catch (err) {
      throw mapPgError(this.#name, err);
    }
    let broken = false;
    try {
      await c.query("BEGIN READ ONLY");
      try {
        const describe = new DescribeOnly(sql.text);
        c.query(describe as unknown as pg.Submittable);
        const columns = await describe.columns;
        return { columns, checked: "parsed and described on the server, never executed" };
      } finally {
        await c.query("ROLLBACK");
      }
    } catch (err) {
      // a server error leaves the session clean after the rollback; anything else may not
      broken = typeof (err as { code?: unknown }).code !== "string";
      throw mapPgError(this.#name, err);
    } finally {
      c.release(broken);
    }
  }

  close(): Promise<void> {
    return this.#sessions.end();
  }
}

/** Factory for `kind: postgres` sources. */
export async function createPostgresSource(init: SourceInit<"postgres">): Promise<Source<SqlRequest>> {
  return new PostgresSource(init, await sourceConfig("postgres", init));
}
