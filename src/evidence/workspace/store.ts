/**
 * The evidence store of a workspace: `<dir>/.tessera/evidence.db` (SQLite, WAL), its schema, the
 * rows it keeps and the statements every refresh and query runs.
 * @module
 */
import type Database from "better-sqlite3";
import { type EvidenceRecord, type Locator, NORMALIZATION_VERSION } from "../../core/index.js";
import type { LogPrefetch } from "../logprefetch.js";
import { record } from "../records.js";
import { SIGNATURE_RULES_VERSION } from "../signatures.js";

// the stored `norm` column is normalized text: a new normalization contract rebuilds the store
// (3: logs keep the ranked signature candidates, adr/0075); so does a new signature rule set
export const SCHEMA_VERSION = `tessera-evidence-3+norm-${NORMALIZATION_VERSION}+rules-${SIGNATURE_RULES_VERSION}`;
/** At most this many error-bearing lines are stored per log; the signature is always stored. */
export const MAX_STORED_LINES_PER_LOG = 2000;

const SCHEMA = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime REAL NOT NULL, hash TEXT NOT NULL,
  skipped INTEGER NOT NULL, problems TEXT NOT NULL);
CREATE TABLE records(id TEXT PRIMARY KEY, file TEXT NOT NULL, type TEXT NOT NULL, owner TEXT NOT NULL,
  seq INTEGER NOT NULL, tier TEXT, rule TEXT, source TEXT NOT NULL, loc_kind TEXT NOT NULL, loc_parts TEXT NOT NULL,
  text TEXT NOT NULL, revision TEXT, norm TEXT NOT NULL);
CREATE INDEX records_file ON records(file);
CREATE INDEX records_owner ON records(type, owner, seq);
CREATE TABLE runs(id TEXT PRIMARY KEY, file TEXT NOT NULL, created_at TEXT NOT NULL, info TEXT NOT NULL);
CREATE INDEX runs_created ON runs(created_at, id);
CREATE INDEX runs_file ON runs(file);
CREATE TABLE logs(run TEXT PRIMARY KEY, file TEXT NOT NULL, signature TEXT, basis TEXT, ranking TEXT);
CREATE INDEX logs_file ON logs(file);
`;

/** A file's row in `files`, as a refresh compares it. */
export interface FileRow {
  size: number;
  mtime: number;
  hash: string;
  skipped: number;
}

export interface RecordRow {
  id: string;
  source: string;
  loc_kind: string;
  loc_parts: string;
  text: string;
  revision: string | null;
}

export function toRecord(r: RecordRow): EvidenceRecord {
  const locator: Locator = { kind: r.loc_kind, parts: JSON.parse(r.loc_parts) as [string, string][] };
  return record(r.id, r.source, locator, r.text, r.revision ?? undefined);
}

/** The prepared statements of one store (named, so declarations can be emitted). */
export interface Statements {
  readonly record: Database.Statement<[string], RecordRow>;
  readonly byOwner: Database.Statement<[string, string], RecordRow>;
  readonly byType: Database.Statement<[string], RecordRow & { owner: string }>;
  readonly logLines: Database.Statement<
    [string],
    RecordRow & { seq: number; tier: string | null; rule: string | null }
  >;
  readonly insert: Database.Statement<unknown[], unknown>;
  readonly run: Database.Statement<[string], { info: string }>;
  readonly runs: Database.Statement<[], { info: string }>;
  readonly insertRun: Database.Statement<unknown[], unknown>;
  readonly log: Database.Statement<
    [string],
    { run: string; signature: string | null; basis: string | null; ranking: string | null }
  >;
  readonly insertLog: Database.Statement<unknown[], unknown>;
  readonly fileRows: Database.Statement<[], FileRow & { path: string }>;
  readonly files: Database.Statement<[], { path: string; skipped: number; problems: string }>;
  readonly upsertFile: Database.Statement<unknown[], unknown>;
  readonly touchFile: Database.Statement<unknown[], unknown>;
  readonly dropFile: readonly Database.Statement<unknown[], unknown>[];
  readonly count: Database.Statement<[], { n: number }>;
  readonly earlier: Database.Statement<
    [string, string, string, string, string, string],
    RecordRow & { owner: string; norm: string }
  >;
  readonly search: Database.Statement<[string, string], RecordRow & { norm: string }>;
  readonly commits: Database.Statement<[string, string], RecordRow>;
}

/** Every statement of the store, prepared once per open workspace. */
export function prepareStatements(db: Database.Database): Statements {
  return {
    record: db.prepare<[string], RecordRow>(
      "SELECT id, source, loc_kind, loc_parts, text, revision FROM records WHERE id = ?",
    ),
    byOwner: db.prepare<[string, string], RecordRow>(
      "SELECT id, source, loc_kind, loc_parts, text, revision FROM records WHERE type = ? AND owner = ? ORDER BY seq",
    ),
    byType: db.prepare<[string], RecordRow & { owner: string }>(
      "SELECT id, source, loc_kind, loc_parts, text, revision, owner FROM records WHERE type = ? ORDER BY length(owner), owner, seq",
    ),
    logLines: db.prepare<[string], RecordRow & { seq: number; tier: string | null; rule: string | null }>(
      "SELECT id, source, loc_kind, loc_parts, text, revision, seq, tier, rule FROM records WHERE type = 'log' AND owner = ? ORDER BY seq",
    ),
    insert: db.prepare(
      "INSERT OR IGNORE INTO records(id, file, type, owner, seq, tier, rule, source, loc_kind, loc_parts, text, revision, norm) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
    ),
    run: db.prepare<[string], { info: string }>("SELECT info FROM runs WHERE id = ?"),
    runs: db.prepare<[], { info: string }>("SELECT info FROM runs ORDER BY created_at, length(id), id"),
    insertRun: db.prepare("INSERT OR IGNORE INTO runs(id, file, created_at, info) VALUES (?,?,?,?)"),
    log: db.prepare<[string], { run: string; signature: string | null; basis: string | null; ranking: string | null }>(
      "SELECT run, signature, basis, ranking FROM logs WHERE run = ?",
    ),
    insertLog: db.prepare("INSERT OR IGNORE INTO logs(run, file, signature, basis, ranking) VALUES (?,?,?,?,?)"),
    fileRows: db.prepare<[], FileRow & { path: string }>("SELECT path, size, mtime, hash, skipped FROM files"),
    files: db.prepare<[], { path: string; skipped: number; problems: string }>(
      "SELECT path, skipped, problems FROM files ORDER BY path",
    ),
    upsertFile: db.prepare(
      "INSERT OR REPLACE INTO files(path, size, mtime, hash, skipped, problems) VALUES (?,?,?,?,?,?)",
    ),
    touchFile: db.prepare("UPDATE files SET size = ?, mtime = ? WHERE path = ?"),
    dropFile: [
      db.prepare("DELETE FROM records WHERE file = ?"),
      db.prepare("DELETE FROM runs WHERE file = ?"),
      db.prepare("DELETE FROM logs WHERE file = ?"),
      db.prepare("DELETE FROM files WHERE path = ?"),
    ],
    count: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM records"),
    // CROSS JOIN keeps records as the outer loop, so the containment filter prunes rows before the join
    earlier: db.prepare<[string, string, string, string, string, string], RecordRow & { owner: string; norm: string }>(
      `SELECT r.id, r.source, r.loc_kind, r.loc_parts, r.text, r.revision, r.owner, r.norm
         FROM records r CROSS JOIN runs u ON u.id = r.owner
        WHERE r.type = 'log' AND instr(r.norm, ?) > 0 AND (u.created_at < ? OR (u.created_at = ? AND (length(u.id) < length(?) OR (length(u.id) = length(?) AND u.id < ?))))
        ORDER BY u.created_at DESC, length(u.id) DESC, u.id DESC, r.seq`,
    ),
    search: db.prepare<[string, string], RecordRow & { norm: string }>(
      "SELECT id, source, loc_kind, loc_parts, text, revision, norm FROM records WHERE type = ? AND instr(norm, ?) > 0 ORDER BY length(owner), owner, seq",
    ),
    commits: db.prepare<[string, string], RecordRow>(
      "SELECT id, source, loc_kind, loc_parts, text, revision FROM records WHERE type = 'commit' AND owner >= ? AND owner < ? || 'g' ORDER BY owner LIMIT 2",
    ),
  };
}

/** One open store: its folder, database and statements, and the log prefetch of a running refresh. */
export interface StoreContext {
  readonly dir: string;
  readonly db: Database.Database;
  readonly q: Statements;
  prefetch: LogPrefetch | undefined;
}

/**
 * Switch to WAL. Changing the journal mode does not wait on the busy handler, so when another
 * process is creating the same store at this moment it is retried for up to 15 s.
 */
function setWal(db: Database.Database): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      if (db.pragma("journal_mode", { simple: true }) === "wal") return;
      db.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if ((code !== "SQLITE_BUSY" && code !== "SQLITE_LOCKED") || attempt >= 300) throw err;
      Atomics.wait(pause, 0, 0, 50);
    }
  }
}

export function openDb(Driver: typeof Database, path: string): { db: Database.Database; fresh: boolean } {
  const db = new Driver(path);
  try {
    db.pragma("busy_timeout = 15000");
    // a new store gets 16 KiB pages (a no-op for an existing one): a first ingest writes about a
    // quarter as many pages to the WAL and then to the database
    db.pragma("page_size = 16384");
    setWal(db);
    db.pragma("synchronous = NORMAL");
    // a refresh is one transaction; a page cache this size keeps SQLite from spilling and rewriting
    // the same pages to the WAL over and over (64 MiB at most, so memory stays bounded)
    db.pragma("cache_size = -65536");
    // keep statement journals and temporary b-trees in memory instead of temp files
    db.pragma("temp_store = MEMORY");
    const version = (): string | undefined => {
      try {
        return db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema'").get()?.value;
      } catch {
        return undefined;
      }
    };
    if (version() === SCHEMA_VERSION) return { db, fresh: false };
    // INVARIANT: checked again under the write lock, so two processes opening a new workspace at
    // once build the schema once (the second finds it) instead of dropping each other's tables
    const fresh = db
      .transaction(() => {
        if (version() === SCHEMA_VERSION) return false;
        for (const t of ["meta", "files", "records", "runs", "logs"]) db.exec(`DROP TABLE IF EXISTS ${t}`);
        db.exec(SCHEMA);
        db.prepare("INSERT INTO meta(key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
        return true;
      })
      .immediate();
    return { db, fresh };
  } catch (err) {
    db.close();
    throw err;
  }
}
