/**
 * Where Tessera keeps its tables in Postgres (`postgres://…?schema=name`), shared by the audit log
 * and the gateway's review queue so several instances share one schema.
 * @module
 */
import type pg from "pg";
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

/** A store URL with its password removed, for messages. */
export function redact(storeUrl: string): string {
  return storeUrl.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
}

/**
 * Run DDL once per schema even when several instances start together, and return the store's key
 * (made in the same transaction when the schema has none).
 */
export async function ensureSchema(pool: pg.Pool, schema: string, ddl: string): Promise<Buffer> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`tessera:${schema}`]);
    await client.query(ddl);
    const key = await pgStoreKey(client, schema);
    await client.query("COMMIT");
    return key;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
