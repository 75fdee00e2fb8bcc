/**
 * Where Tessera keeps its tables in Postgres (`postgres://…?schema=name`), shared by the audit log
 * and the gateway's review queue so several instances share one schema.
 * @module
 */
import pg from "pg";
import { TesseraError } from "../platform/errors.js";
import { pgStoreKey } from "./store-key.js";

/** Where the gateway keeps its tables in Postgres. */
export interface PgLocation {
  /** A connection string without Tessera's own `schema` parameter. */
  readonly url: string;
  /** The schema holding the queue, pins and audit events (default `tessera`). */
  readonly schema: string;
}

/** Split `postgres://…?schema=name` into the driver's URL and the schema (default `tessera`). */
export function pgLocation(storeUrl: string): PgLocation {
  let url: URL;
  try {
    url = new URL(storeUrl);
  } catch {
    throw new TesseraError("store_invalid", `invalid store url \`${redact(storeUrl)}\``);
  }
  const schema = url.searchParams.get("schema") ?? "tessera";
  url.searchParams.delete("schema");
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new TesseraError("store_invalid", `invalid schema \`${schema}\` (lower-case letters, digits and _)`);
  }
  return { url: url.toString(), schema };
}

/** A `store_missing` error unless `schema.table` exists. */
async function checkExists(client: pg.PoolClient, schema: string, table: string, storeUrl: string): Promise<void> {
  const r = await client.query<{ schema: boolean; table: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema,
            to_regclass(format('%I.%I', $1::text, $2::text)) IS NOT NULL AS table`,
    [schema, table],
  );
  const { schema: hasSchema, table: hasTable } = r.rows[0]!;
  if (hasTable) return;
  throw new TesseraError(
    "store_missing",
    `${hasSchema ? `schema \`${schema}\` holds no gateway store` : `no schema \`${schema}\``} at \`${redact(storeUrl)}\` (check \`?schema=\`, or give \`--create\` to create the store there)`,
  );
}

/** A store URL with its password removed, for messages. */
export function redact(storeUrl: string): string {
  return storeUrl.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
}

/**
 * The pool of a review queue or audit log. Every session has an `error` listener from the moment
 * the pool makes it (adr/0073): a session the server ends (failover, restart, idle timeout,
 * `pg_terminate_backend`) while a store holds it then fails that store call with an error, never
 * the process with an unhandled 'error' event; the pool replaces the session on the next call.
 */
export function openStorePool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4, application_name: "tessera-store" });
  pool.on("error", () => undefined); // an idle session's end: the pool drops it, the next call gets a new one
  pool.on("connect", (session) => {
    session.on("error", () => undefined); // the query it was running rejects with the same error
  });
  return pool;
}

/**
 * `pool.query` of a store, its failures as `store_unavailable` errors naming the store (without its
 * password), so a session the server ended reads as what it is, not as an internal error.
 */
export function storeQuery(pool: pg.Pool, what: string, storeUrl: string) {
  return async <R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> => {
    try {
      return await pool.query<R>(sql, params);
    } catch (err) {
      throw new TesseraError(
        "store_unavailable",
        `${what} \`${redact(storeUrl)}\` failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };
}

/** Options of `ensureSchema`. */
export interface EnsureOptions {
  /**
   * A table of the store that must already be there (a command reading a store, without `--create`):
   * a mistyped `?schema=` is refused instead of created empty.
   */
  readonly mustExist?: string;
  /** The store URL as given, for the message. */
  readonly storeUrl: string;
}

/**
 * Run DDL once per schema even when several instances start together, and return the store's key
 * (made in the same transaction when the schema has none). With `mustExist`, a schema without
 * that table is `store_missing` and nothing is created.
 */
export async function ensureSchema(
  pool: pg.Pool,
  schema: string,
  ddl: string,
  options: EnsureOptions,
): Promise<Buffer> {
  const client = await pool.connect();
  let key: Buffer;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`tessera:${schema}`]);
    if (options.mustExist !== undefined) await checkExists(client, schema, options.mustExist, options.storeUrl);
    await client.query(ddl);
    key = await pgStoreKey(client, schema);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release(err instanceof Error ? err : true); // discarded: it may be a session the server ended
    throw err;
  }
  client.release();
  return key;
}
