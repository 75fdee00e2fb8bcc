/**
 * The evidence store of a workspace: `<dir>/.tessera/evidence.db` (SQLite, WAL), its schema, the
 * rows it keeps and the statements every refresh and query runs.
 * @module
 */
import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { type EvidenceRecord, type Locator, NORMALIZATION_VERSION } from "../../core/index.js";
import type { LogPrefetch } from "../logprefetch.js";
import { record } from "../records.js";
import { SIGNATURE_RULES_VERSION } from "../signatures.js";

// the stored `norm` column is normalized text: a new normalization contract rebuilds the store
// (3: logs keep the ranked signature candidates, adr/0075); so does a new signature rule set
// (4: the log-line term index, adr/0111, and the store's identity, adr/0110; a version-3 store is migrated)
const SCHEMA_SUFFIX = `+norm-${NORMALIZATION_VERSION}+rules-${SIGNATURE_RULES_VERSION}`;
export const SCHEMA_VERSION = `tessera-evidence-4${SCHEMA_SUFFIX}`;
/** The previous format with the same normalization and rules: migrated in place, not rebuilt. */
export const MIGRATABLE_SCHEMA_VERSION = `tessera-evidence-3${SCHEMA_SUFFIX}`;
/** At most this many error-bearing lines are stored per log; the signature is always stored. */
export const MAX_STORED_LINES_PER_LOG = 2000;

// every distinct token of every stored log line of a run that has a run file, keyed in the order
// the earlier-log search reads them (the run's created_at, then its id as runs are sorted), and
// how many lines each token is in (to pick a fragment's rarest token)
const TERMS_SCHEMA = `
CREATE TABLE log_terms(term TEXT NOT NULL, created_at TEXT NOT NULL, idlen INTEGER NOT NULL, run TEXT NOT NULL,
  seq INTEGER NOT NULL, PRIMARY KEY(term, created_at, idlen, run, seq)) WITHOUT ROWID;
CREATE TABLE term_counts(term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
`;

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
${TERMS_SCHEMA}`;

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
  readonly runsOfFile: Database.Statement<[string, string], { run: string }>;
  readonly deleteTerm: Database.Statement<unknown[], unknown>;
  readonly countTerm: Database.Statement<[string, number], unknown>;
  readonly count: Database.Statement<[], { n: number }>;
  readonly search: Database.Statement<[string, string], RecordRow & { norm: string }>;
  readonly runCreated: Database.Statement<[string], { created_at: string }>;
  readonly stamp: Database.Statement<[], { store: string | null; generation: string | null }>;
  readonly bumpGeneration: Database.Statement<[], unknown>;
  readonly logNorms: Database.Statement<[string], { seq: number; norm: string }>;
  readonly insertTerm: Database.Statement<unknown[], unknown>;
  readonly termProbe: Database.Statement<[string], { n: number }>;
  readonly earlierByTerm: Database.Statement<
    [string, string, number, string],
    RecordRow & { owner: string; seq: number; norm: string }
  >;
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
    runsOfFile: db.prepare<[string, string], { run: string }>(
      "SELECT id AS run FROM runs WHERE file = ? UNION SELECT run FROM logs WHERE file = ?",
    ),
    deleteTerm: db.prepare(
      "DELETE FROM log_terms WHERE term = ? AND created_at = ? AND idlen = ? AND run = ? AND seq = ?",
    ),
    countTerm: db.prepare(
      "INSERT INTO term_counts(term, n) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET n = n + excluded.n",
    ),
    dropFile: [
      db.prepare("DELETE FROM records WHERE file = ?"),
      db.prepare("DELETE FROM runs WHERE file = ?"),
      db.prepare("DELETE FROM logs WHERE file = ?"),
      db.prepare("DELETE FROM files WHERE path = ?"),
    ],
    count: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM records"),
    search: db.prepare<[string, string], RecordRow & { norm: string }>(
      "SELECT id, source, loc_kind, loc_parts, text, revision, norm FROM records WHERE type = ? AND instr(norm, ?) > 0 ORDER BY length(owner), owner, seq",
    ),
    runCreated: db.prepare<[string], { created_at: string }>("SELECT created_at FROM runs WHERE id = ?"),
    stamp: db.prepare<[], { store: string | null; generation: string | null }>(
      "SELECT (SELECT value FROM meta WHERE key = 'store') AS store, (SELECT value FROM meta WHERE key = 'generation') AS generation",
    ),
    bumpGeneration: db.prepare(
      "INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    ),
    logNorms: db.prepare<[string], { seq: number; norm: string }>(
      "SELECT seq, norm FROM records WHERE type = 'log' AND owner = ?",
    ),
    insertTerm: db.prepare("INSERT OR IGNORE INTO log_terms(term, created_at, idlen, run, seq) VALUES (?,?,?,?,?)"),
    termProbe: db.prepare<[string], { n: number }>("SELECT n FROM term_counts WHERE term = ?"),
    // newest earlier run first; within a run the lines come last to first, so the last match is its first line
    earlierByTerm: db.prepare<
      [string, string, number, string],
      RecordRow & { owner: string; seq: number; norm: string }
    >(
      `SELECT r.id, r.source, r.loc_kind, r.loc_parts, r.text, r.revision, t.run AS owner, t.seq, r.norm
         FROM log_terms t JOIN records r ON r.id = 'log:' || t.run || ':' || t.seq
        WHERE t.term = ? AND (t.created_at, t.idlen, t.run) < (?, ?, ?)
        ORDER BY t.created_at DESC, t.idlen DESC, t.run DESC, t.seq DESC`,
    ),
    commits: db.prepare<[string, string], RecordRow>(
      "SELECT id, source, loc_kind, loc_parts, text, revision FROM records WHERE type = 'commit' AND owner >= ? AND owner < ? || 'g' ORDER BY owner LIMIT 2",
    ),
  };
}

/**
 * One open store: its folder, database and statements, the log prefetch of a running refresh, the
 * modification time it records for a file (-1 when the time is too recent to trust) and the term
 * counts it has yet to write.
 */
export interface StoreContext {
  readonly dir: string;
  readonly db: Database.Database;
  readonly q: Statements;
  prefetch: LogPrefetch | undefined;
  storedMtime: (mtime: number) => number;
  /** Changes to `term_counts` not yet written (one write per term per refresh, not per line). */
  readonly termCounts: Map<string, number>;
}

/** What identifies the store's content: its id (new on every rebuild) and its refresh count. */
export interface StoreStamp {
  readonly store: string;
  readonly generation: number;
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

/**
 * Open (creating, migrating or rebuilding) the store at `path`. A store of
 * `MIGRATABLE_SCHEMA_VERSION` gains the tables it lacks and `migrate` fills them, in the same
 * transaction; any other version is dropped and rebuilt (`fresh`).
 */
export function openDb(
  Driver: typeof Database,
  path: string,
  migrate: (db: Database.Database) => void,
): { db: Database.Database; fresh: boolean } {
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
        const found = version();
        if (found === SCHEMA_VERSION) return false;
        if (found === MIGRATABLE_SCHEMA_VERSION) {
          db.exec(TERMS_SCHEMA);
          migrate(db);
          db.prepare("UPDATE meta SET value = ? WHERE key = 'schema'").run(SCHEMA_VERSION);
          db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('store', ?)").run(randomUUID());
          return false;
        }
        for (const t of ["meta", "files", "records", "runs", "logs", "log_terms", "term_counts"])
          db.exec(`DROP TABLE IF EXISTS ${t}`);
        db.exec(SCHEMA);
        db.prepare("INSERT INTO meta(key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
        db.prepare("INSERT INTO meta(key, value) VALUES ('store', ?)").run(randomUUID());
        return true;
      })
      .immediate();
    return { db, fresh };
  } catch (err) {
    db.close();
    throw err;
  }
}
