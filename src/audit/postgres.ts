/**
 * The audit log over Postgres, for gateways scaled out to several instances sharing one log.
 * Same envelope as the SQLite log (`{type, id, at, …payload}`, snake_case keys); each event is one
 * INSERT (its own transaction) and is stored as the exact JSON text that export prints.
 * @module
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { type Digester, keyedDigestOf } from "../platform/digest.js";
import { TesseraError } from "../platform/errors.js";
import { checkEvent } from "./envelope.js";
import { type AuditQuery, unknownEvent } from "./query.js";
import { ensureSchema, openStorePool, pgLocation, redact, storeQuery } from "./pg-store.js";

/** An audit event as stored: the envelope keys first, then the payload in its own key order. */
export interface PgAuditEvent {
  readonly type: string;
  readonly id: string;
  readonly at: string;
  readonly [key: string]: unknown;
}

/** An open Postgres audit log. */
export interface PgAuditLog {
  /** The store's keyed digest of a value (adr/0071): what `arguments_digest` and `context_digest` hold. */
  readonly digest: Digester;
  append(type: string, payload: Record<string, unknown>): Promise<PgAuditEvent>;
  close(): Promise<void>;
}

const ddl = (s: string) => `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.audit_events (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  at TEXT NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_type ON ${s}.audit_events (type, seq);`;

async function openPool(storeUrl: string, mustExist: boolean): Promise<{ pool: pg.Pool; schema: string; key: Buffer }> {
  const { url, schema } = pgLocation(storeUrl);
  const pool = openStorePool(url);
  let key: Buffer;
  try {
    key = await ensureSchema(pool, schema, ddl(schema), {
      storeUrl,
      ...(mustExist ? { mustExist: "audit_events" } : {}),
    });
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof TesseraError) throw err;
    throw new TesseraError(
      "store_unavailable",
      `cannot open audit log \`${redact(storeUrl)}\`: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return { pool, schema, key };
}

/**
 * Open the audit log in a Postgres schema (`postgres://…?schema=name`), creating its table when
 * needed; with `mustExist`, a schema without the log is `store_missing` and nothing is created.
 */
export async function openPgAuditLog(
  storeUrl: string,
  options: { clock?: () => number; mustExist?: boolean } = {},
): Promise<PgAuditLog> {
  const clock = options.clock ?? Date.now;
  const { pool, schema, key } = await openPool(storeUrl, options.mustExist === true);
  return {
    digest: (value) => keyedDigestOf(key, value),
    async append(type, payload) {
      // the checks and serialization of the SQLite log (src/audit/log.ts), so both stores hold the same events
      checkEvent(type, payload);
      const event: PgAuditEvent = { type, id: randomUUID(), at: new Date(clock()).toISOString(), ...payload };
      const text = JSON.stringify(event, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
      await storeQuery(
        pool,
        "audit log",
        storeUrl,
      )(`INSERT INTO ${schema}.audit_events (id, type, at, event) VALUES ($1, $2, $3, $4)`, [
        event.id,
        type,
        event.at,
        text,
      ]);
      return event;
    },
    async close() {
      await pool.end().catch(() => undefined);
    },
  };
}

/**
 * The events of a Postgres audit log, in append order, as stored JSON text (optionally of one type,
 * or one page: the type, cursor and limit are conditions of the query); a schema without one is
 * `store_missing`.
 */
export async function readPgAuditLines(storeUrl: string, q: AuditQuery = {}): Promise<string[]> {
  const { pool, schema } = await openPool(storeUrl, true);
  try {
    const query = storeQuery(pool, "audit log", storeUrl);
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.type !== undefined) {
      params.push(q.type);
      where.push(`type = $${params.length}`);
    }
    if (q.after !== undefined) {
      const r = await query<{ seq: string }>(`SELECT seq FROM ${schema}.audit_events WHERE id = $1`, [q.after]);
      if (r.rows.length === 0) throw unknownEvent(q.after);
      params.push(r.rows[0]!.seq);
      where.push(`seq > $${params.length}`);
    }
    let limit = "";
    if (q.limit !== undefined) {
      params.push(q.limit);
      limit = ` LIMIT $${params.length}`;
    }
    const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    return (
      await query<{ event: string }>(
        `SELECT event FROM ${schema}.audit_events${condition} ORDER BY seq${limit}`,
        params,
      )
    ).rows.map((r) => r.event);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
