/**
 * The Postgres Source (`pg`): `%(name)s` placeholders become `$n`, every request runs in its own
 * `BEGIN READ ONLY … ROLLBACK` on a pooled connection that is itself read-only by default, with
 * `statement_timeout` and a connection timeout from the source's `timeout_ms`.
 * @module
 */
import pg from "pg";
import type { PreparedRequest, RequestDescription, Source, SourceInit, SourceResult } from "../checks/source.js";
import { SourceError } from "../checks/source.js";
import type { Scalar } from "../core/index.js";
import { sha256Hex } from "../platform/digest.js";
import {
  configInt,
  configString,
  DEFAULT_TIMEOUT_MS,
  errnoOf,
  MAX_ROWS,
  positional,
  scalarRows,
  type HeldSession,
  runHeld,
  tooManyRows,
  UNREACHABLE_ERRNO,
  watchSession,
} from "./adapter-util.js";
import { translatePlaceholders } from "./sql-placeholders.js";

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

/** A bound scalar as `pg` sends it: text for every kind; a bigint keeps every digit. */
function toPg(v: Scalar): unknown {
  return typeof v === "bigint" ? v.toString() : v;
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

class PostgresSource implements Source {
  readonly kind = "postgres";
  readonly timeoutMs: number;
  readonly #name: string;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(init: SourceInit) {
    this.#name = init.name;
    const url = configString(init.config, "url", init.name);
    this.timeoutMs = configInt(init.config, "timeout_ms", init.name, DEFAULT_TIMEOUT_MS);
    this.#pool = new pg.Pool({
      connectionString: url,
      max: configInt(init.config, "pool_size", init.name, 4),
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
    this.#pool.on("error", () => undefined);
    this.#pool.on("connect", (client) => watchSession(client));
  }

  prepare(request: { query?: string }): PreparedRequest {
    if (typeof request.query !== "string" || request.query.trim() === "") {
      throw new SourceError("source_invalid_query", `source \`${this.#name}\`: a postgres check needs a \`query\``);
    }
    const sql = translatePlaceholders(request.query, "postgres");
    const statement = `tessera_${sha256Hex(sql.text).slice(0, 24)}`;
    return {
      parameters: sql.parameters,
      run: async (params, signal) => this.#run(statement, sql.text, positional(sql.order, params).map(toPg), signal),
    };
  }

  async #run(statement: string, text: string, values: unknown[], signal: AbortSignal): Promise<SourceResult> {
    if (this.#closed) throw new SourceError("source_unreachable", `source \`${this.#name}\` is closed`);
    // what this request holds: its session (kept after release, to tell a session the server ended)
    // and whether the engine aborted it
    const held: HeldSession<pg.PoolClient> = { conn: undefined, session: undefined, aborted: false };
    const work = (async (): Promise<SourceResult> => {
      const c = await this.#pool.connect();
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
      if (result.rows.length > MAX_ROWS) throw tooManyRows(this.#name);
      const columns = result.fields.map((f) => f.name);
      return { rows: scalarRows(this.#name, columns, result.rows), columns };
    })();
    return runHeld(this.#name, signal, held, work, (c) => c.release(true), mapPgError);
  }

  async describe(request: { query?: string }): Promise<RequestDescription> {
    this.prepare(request);
    const sql = translatePlaceholders(request.query!, "postgres");
    if (this.#closed) throw new SourceError("source_unreachable", `source \`${this.#name}\` is closed`);
    let c: pg.PoolClient;
    try {
      c = await this.#pool.connect();
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
      broken = !(err as { code?: unknown }).code;
      throw mapPgError(this.#name, err);
    } finally {
      c.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

/** Factory for `kind: postgres` sources. */
export async function createPostgresSource(init: SourceInit): Promise<Source> {
  return new PostgresSource(init);
}
