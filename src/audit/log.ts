/**
 * The audit log: an append-only table of versioned events in SQLite (WAL mode). Each event is
 * `{type, id, at, ...payload}` with snake_case payload keys; the clock is injectable so tests and
 * replays produce the same log. Other layers add event types; decisions are `tessera.decision.v1`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type Digester, keyedDigestOf } from "../platform/digest.js";
import { TesseraError } from "../platform/errors.js";
import { ensurePrivateFile } from "../platform/private-file.js";
import { checkEvent } from "./envelope.js";
import { type AuditQuery, unknownEvent } from "./query.js";
import { sqliteStoreKey } from "./store-key.js";

/** One stored event: its type (`tessera.<what>.v<n>`), id, ISO-8601 time, then the payload's keys. */
export interface AuditEvent {
  readonly type: string;
  readonly id: string;
  readonly at: string;
  readonly [key: string]: unknown;
}

/** Options of `openAuditLog`: a clock (default: the wall clock) and an id generator (default: random UUIDs). */
export interface AuditOptions {
  readonly clock?: () => Date;
  readonly newId?: () => string;
}

/** An open audit log. */
export interface AuditLog {
  /** The database file. */
  readonly file: string;
  /** The store's keyed digest of a value (adr/0071): what `arguments_digest` and `context_digest` hold. */
  readonly digest: Digester;
  /** Append one event and return it as stored. */
  append(type: string, payload: Readonly<Record<string, unknown>>): AuditEvent;
  /**
   * Append one event in a group commit (adr/0114): every event queued while one callback of the
   * event loop and the promise jobs it started run is written in one transaction once they have
   * run (`process.nextTick`), in the order they were queued. Resolves with
   * the event once that transaction has committed, so a caller that waits for it knows the event is
   * as durable as one `append` makes it; rejects when the transaction fails (then none of its events
   * was written). A payload that is not a valid event throws at once, and nothing is queued.
   */
  appendGrouped(type: string, payload: Readonly<Record<string, unknown>>): Promise<AuditEvent>;
  /** Close the database, after committing the events still queued. Idempotent. */
  close(): void;
}

function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_events (
  seq  INTEGER PRIMARY KEY AUTOINCREMENT,
  id   TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  at   TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_type ON audit_events (type, seq);
`;

/**
 * Open (creating if needed) the audit log at `file`.
 * @example const log = openAuditLog(".tessera/audit.db"); log.append("tessera.decision.v1", { tool: "refund_order" });
 */
export function openAuditLog(file: string, options: AuditOptions = {}): AuditLog {
  const clock = options.clock ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  let db: Database.Database;
  let key: Buffer;
  try {
    mkdirSync(dirname(file), { recursive: true });
    if (file !== ":memory:") ensurePrivateFile(file);
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    // WAL + NORMAL: an appended event survives a crash of the process; an OS crash or power loss
    // may lose the last few (FULL would fsync every decision)
    db.pragma("synchronous = NORMAL");
    db.exec(SCHEMA);
    key = sqliteStoreKey(db);
  } catch (err) {
    throw new TesseraError(
      "audit_unwritable",
      `cannot open audit log \`${file}\` (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const insert = db.prepare("INSERT INTO audit_events (id, type, at, body) VALUES (?, ?, ?, ?)");
  let closed = false;
  const eventOf = (type: string, payload: Readonly<Record<string, unknown>>): AuditEvent => {
    if (closed) throw new TesseraError("audit_closed", `audit log \`${file}\` is closed`);
    checkEvent(type, payload);
    return { type, id: newId(), at: clock().toISOString(), ...payload };
  };
  // the group commit: events queued in this turn of the event loop, and their waiters
  let queued: { event: AuditEvent; resolve: (e: AuditEvent) => void; reject: (err: unknown) => void }[] = [];
  const insertAll = db.transaction((events: readonly AuditEvent[]) => {
    for (const e of events) insert.run(e.id, e.type, e.at, json(e));
  });
  const commitQueued = () => {
    const batch = queued;
    queued = [];
    if (batch.length === 0) return;
    try {
      // one event alone is one autocommitted INSERT, as `append` writes it: the same transaction, less work
      if (batch.length === 1)
        insert.run(batch[0]!.event.id, batch[0]!.event.type, batch[0]!.event.at, json(batch[0]!.event));
      else insertAll(batch.map((q) => q.event));
    } catch (err) {
      const failed = new TesseraError(
        "audit_write_failed",
        `cannot append to audit log \`${file}\` (${err instanceof Error ? err.message : String(err)})`,
      );
      for (const q of batch) q.reject(failed);
      return;
    }
    for (const q of batch) q.resolve(q.event);
  };
  return {
    file,
    digest: (value) => keyedDigestOf(key, value),
    append(type, payload) {
      const event = eventOf(type, payload);
      insert.run(event.id, type, event.at, json(event));
      return event;
    },
    appendGrouped(type, payload) {
      const event = eventOf(type, payload);
      return new Promise<AuditEvent>((resolve, reject) => {
        // once this callback and the promise jobs it started have run: every call read in this callback has queued its event
        if (queued.length === 0) process.nextTick(commitQueued);
        queued.push({ event, resolve, reject });
      });
    },
    close() {
      if (closed) return;
      commitQueued();
      closed = true;
      db.close();
    },
  };
}

/**
 * Every event in `file`, oldest first (optionally of one type, or one page). The type, the cursor and
 * the limit are conditions of the query (over `audit_events_type` and the unique `id`), so a page
 * of a long log reads that page's rows only.
 */
export function readAuditEvents(file: string, query: string | AuditQuery = {}): AuditEvent[] {
  const q: AuditQuery = typeof query === "string" ? { type: query } : query;
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    throw new TesseraError("audit_unreadable", `no audit log \`${file}\``);
  }
  try {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.type !== undefined) {
      where.push("type = ?");
      params.push(q.type);
    }
    if (q.after !== undefined) {
      const seq = db.prepare("SELECT seq FROM audit_events WHERE id = ?").pluck().get(q.after);
      if (seq === undefined) throw unknownEvent(q.after);
      where.push("seq > ?");
      params.push(seq);
    }
    const limit = q.limit === undefined ? "" : " LIMIT ?";
    if (q.limit !== undefined) params.push(q.limit);
    const sql = `SELECT body FROM audit_events${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`} ORDER BY seq${limit}`;
    const rows = db.prepare(sql).all(...params) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as AuditEvent);
  } finally {
    db.close();
  }
}
