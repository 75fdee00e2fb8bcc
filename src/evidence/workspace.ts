/**
 * The workspace store (DESIGN.md §6): a directory of CI runs, logs, pull requests, diffs, tickets
 * and commits, ingested into `<dir>/.tessera/evidence.db` (SQLite, WAL) on first use and refreshed
 * incrementally — a file is re-read only when its size or mtime changed and its content hash differs.
 * @module
 */
import { type Dirent, mkdirSync, readdirSync, type Stats, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { TesseraError } from "../platform/errors.js";
import {
  containsNormalized,
  type EvidenceRecord,
  type Locator,
  NORMALIZATION_VERSION,
  normalize,
} from "../core/index.js";
import { canPrefetch, LogPrefetch, prefetchTuning } from "./logprefetch.js";
import { scanLog, type ScanLine } from "./logscan.js";
import { logId, logLocator, record, type RecordType } from "./records.js";
import {
  FAILED_CONCLUSIONS,
  parseCommit,
  parseDiffRecords,
  parsePr,
  parseRun,
  parseTickets,
  type RunInfo,
  SAFE_ID,
} from "./readers.js";
import type { LineTier, ScoreReason, Signature, SignatureBasis } from "./signatures.js";
import { FileProblem, hashFile, type ReadInfo, readTextFile } from "./text.js";

/** One problem found while ingesting, tied to the file it concerns. */
export interface IngestProblem {
  readonly file: string;
  readonly code: string;
  readonly message: string;
}

/** What a refresh saw. `files` = `read` + `unchanged` + `skipped`. */
export interface IngestSummary {
  /** Workspace files considered (under runs/, logs/, prs/, tickets/, commits/ and tickets.json). */
  readonly files: number;
  /** Files (re)ingested by this refresh. */
  readonly read: number;
  /** Files ingested earlier and unchanged since. */
  readonly unchanged: number;
  /** Files not ingested because of a problem (listed in `problems`). */
  readonly skipped: number;
  /** Files that disappeared since the last refresh (their records were removed). */
  readonly removed: number;
  /** Evidence records in the store. */
  readonly records: number;
  /** Every current problem, by file then code; warnings do not skip a file. */
  readonly problems: readonly IngestProblem[];
}

/** A stored log line: its record and how the signature rules classified it. */
export interface LogLine {
  readonly record: EvidenceRecord;
  readonly line: number;
  /** `null` for a line kept only because it is the run's signature (the last output before a trailer). */
  readonly tier: LineTier | null;
  readonly rule: string | null;
}

/** A scored signature candidate of a run's log: its line's record, rule, score and reasons. */
export interface RankedRecord {
  readonly record: EvidenceRecord;
  readonly rule: string;
  readonly score: number;
  readonly reasons: readonly ScoreReason[];
}

/** A run's failure signature: its log line, why it was chosen, and the ranked candidates (it first). */
export interface RunSignature {
  readonly record: EvidenceRecord;
  readonly basis: SignatureBasis;
  readonly ranked: readonly RankedRecord[];
}

/** An ingested workspace. Not safe to share across threads; close it when done. */
export interface Workspace {
  /** The workspace directory (absolute). */
  readonly dir: string;
  /** The summary of the last refresh (or of the state found, when opened without refreshing). */
  readonly summary: IngestSummary;
  /** Re-scan the directory and ingest what changed. */
  refresh(): IngestSummary;
  /** A record by its stable id. */
  getRecord(id: string): EvidenceRecord | undefined;
  /** Run metadata. */
  getRun(id: string): RunInfo | undefined;
  /** All runs, oldest first (by `createdAt`, then id). */
  listRuns(): RunInfo[];
  /** Whether the run has an ingested log. */
  hasLog(run: string): boolean;
  /** The stored lines of a run's log (error-bearing lines and the signature), in log order. */
  logLines(run: string): LogLine[];
  /** The run's failure signature, when its log has any output. */
  signature(run: string): RunSignature | undefined;
  /**
   * Log lines of runs created before `before` whose text contains `fragment` (token-bounded, as
   * `contains`): the first such line per run, most recent run first, at most `limit` runs.
   */
  findInEarlierLogs(fragment: string, before: string, limit: number): EvidenceRecord[];
  /** Pull-request, ticket or commit records whose text contains `fragment` (token-bounded, as `contains`), by id. */
  search(type: "pr" | "ticket" | "commit", fragment: string): EvidenceRecord[];
  /** A pull request's record. */
  getPr(n: string): EvidenceRecord | undefined;
  /** All pull-request records, by number. */
  listPrs(): EvidenceRecord[];
  /** Diff-hunk records of a PR number or commit sha, in diff order. */
  hunks(owner: string): EvidenceRecord[];
  /** All ticket records, by id. */
  listTickets(): EvidenceRecord[];
  /** A commit record by full sha or a unique prefix of at least 7 characters. */
  getCommit(shaOrPrefix: string): EvidenceRecord | undefined;
  /** All commit records, by sha. */
  listCommits(): EvidenceRecord[];
  /** Close the store. */
  close(): void;
}

/** Options of `openWorkspace`. */
export interface OpenOptions {
  /** Re-scan the directory (default true). With false an existing store is used as it is. */
  readonly refresh?: boolean;
}

// the stored `norm` column is normalized text: a new normalization contract rebuilds the store
// (3: logs keep the ranked signature candidates, adr/0075)
const SCHEMA_VERSION = `tessera-evidence-3+norm-${NORMALIZATION_VERSION}`;
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
interface FileRow {
  size: number;
  mtime: number;
  hash: string;
  skipped: number;
}

interface RecordRow {
  id: string;
  source: string;
  loc_kind: string;
  loc_parts: string;
  text: string;
  revision: string | null;
}

function toRecord(r: RecordRow): EvidenceRecord {
  const locator: Locator = { kind: r.loc_kind, parts: JSON.parse(r.loc_parts) as [string, string][] };
  return record(r.id, r.source, locator, r.text, r.revision ?? undefined);
}

type Kind = "run" | "log" | "pr" | "diff" | "ticket" | "tickets" | "commit" | "commit-diff";

/** Which reader a workspace path belongs to, or null for a file in a known folder that no reader takes. */
function kindOf(rel: string): Kind | null {
  const [dir, name, ...rest] = rel.split("/");
  if (rest.length > 0 || name === undefined) return rel === "tickets.json" ? "tickets" : null;
  const ext = extname(name);
  switch (dir) {
    case "runs":
      return ext === ".json" ? "run" : null;
    case "logs":
      return ext === ".log" || ext === ".txt" ? "log" : null;
    case "prs":
      return ext === ".json" ? "pr" : ext === ".diff" || ext === ".patch" ? "diff" : null;
    case "tickets":
      return ext === ".json" ? "ticket" : null;
    case "commits":
      return ext === ".json" ? "commit" : ext === ".diff" || ext === ".patch" ? "commit-diff" : null;
    default:
      return null;
  }
}

const FOLDERS = ["runs", "logs", "prs", "tickets", "commits"];

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const folder of FOLDERS) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const name = e.name;
      if (name.startsWith(".")) continue;
      const rel = `${folder}/${name}`;
      if (e.isFile()) out.push(rel);
      else if (e.isSymbolicLink()) {
        // the entry type says nothing about a link's target: stat it, as for every file before
        try {
          if (statSync(join(dir, rel)).isFile()) out.push(rel);
        } catch {
          // vanished between readdir and stat, or a dangling link: it is simply not there
        }
      }
    }
  }
  try {
    if (statSync(join(dir, "tickets.json")).isFile()) out.push("tickets.json");
  } catch {
    // no tickets.json
  }
  return out.sort();
}

const stem = (rel: string): string => basename(rel, extname(rel));

class SqliteWorkspace implements Workspace {
  readonly dir: string;
  summary: IngestSummary;
  private readonly db: Database.Database;
  private readonly q: ReturnType<SqliteWorkspace["prepare"]>;
  private prefetch: LogPrefetch | undefined;

  constructor(dir: string, db: Database.Database) {
    this.dir = dir;
    this.db = db;
    this.q = this.prepare();
    this.summary = this.currentSummary(0, null, 0);
  }

  private prepare() {
    const db = this.db;
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
      log: db.prepare<
        [string],
        { run: string; signature: string | null; basis: string | null; ranking: string | null }
      >("SELECT run, signature, basis, ranking FROM logs WHERE run = ?"),
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
      earlier: db.prepare<
        [string, string, string, string, string, string],
        RecordRow & { owner: string; norm: string }
      >(
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

  private put(
    id: string,
    file: string,
    type: RecordType,
    owner: string,
    seq: number,
    rec: EvidenceRecord,
    tier: string | null = null,
    rule: string | null = null,
  ): boolean {
    const info = this.q.insert.run(
      id,
      file,
      type,
      owner,
      seq,
      tier,
      rule,
      rec.source,
      rec.locator.kind,
      JSON.stringify(rec.locator.parts),
      rec.text,
      rec.revision ?? null,
      normalize(rec.text),
    );
    return info.changes > 0;
  }

  refresh(): IngestSummary {
    let read = 0;
    let removed = 0;
    let unchanged = 0;
    const processed = new Set<string>();
    // a vanished folder is an error, never "every file was removed"
    let st;
    try {
      st = statSync(this.dir);
    } catch {
      st = undefined;
    }
    if (st === undefined || !st.isDirectory())
      throw new TesseraError("workspace_not_found", `no such workspace folder \`${this.dir}\``);
    const ingest = this.db.transaction(() => {
      const present = listFiles(this.dir);
      const presentSet = new Set(present);
      // every stored file row in one query (ingesting one file never changes another's row)
      const rows = new Map<string, FileRow>();
      for (const f of this.q.fileRows.all()) {
        if (presentSet.has(f.path)) rows.set(f.path, f);
        else {
          this.drop(f.path);
          removed++;
        }
      }
      // each file's absolute path, kind, stat and stored row, found once
      const stats = new Map<string, { abs: string; kind: Kind | null; st: Stats; prev: FileRow | undefined }>();
      const toScan: string[] = [];
      const toScanSizes: number[] = [];
      let scanBytes = 0;
      let allLogBytes = 0;
      const look = (rel: string, kind: Kind | null): void => {
        try {
          const abs = join(this.dir, rel);
          const st = statSync(abs);
          const prev = rows.get(rel);
          stats.set(rel, { abs, kind, st, prev });
          if (kind === "log" && (prev === undefined || prev.size !== st.size || prev.mtime !== st.mtimeMs)) {
            // the worker takes a share of the log bytes; this thread scans the rest after the other files
            allLogBytes += st.size;
            if (scanBytes <= prefetchTuning.share * allLogBytes) {
              toScan.push(abs);
              toScanSizes.push(st.size);
              scanBytes += st.size;
            }
          }
        } catch {
          // vanished since it was listed: skipped below
        }
      };
      // the logs are stat'ed first, so the worker (which takes about 0.1 s to start) starts up while
      // this thread stats the other files
      const kinds = present.map(kindOf);
      for (let i = 0; i < present.length; i++) if (kinds[i] === "log") look(present[i]!, "log");
      // many MB of logs: a worker scans them ahead on the second core while this thread writes
      if (toScan.length > 1 && allLogBytes >= prefetchTuning.minBytes && canPrefetch())
        this.prefetch = new LogPrefetch(toScan, toScanSizes, MAX_STORED_LINES_PER_LOG);
      for (let i = 0; i < present.length; i++) if (kinds[i] !== "log") look(present[i]!, kinds[i] ?? null);
      // logs last, so this thread reads the other files while the worker scans logs; no record id,
      // run or log row can be claimed by both a log and another kind of file, and within each
      // group the sorted order (which decides duplicate-id contests) is kept
      const isLog = (rel: string): boolean => stats.get(rel)?.kind === "log";
      const ordered = [...present.filter((rel) => !isLog(rel)), ...present.filter(isLog)];
      for (const rel of ordered) {
        const known = stats.get(rel);
        if (known === undefined) continue;
        const { abs, st, prev } = known;
        if (prev !== undefined && prev.size === st.size && prev.mtime === st.mtimeMs) {
          if (!prev.skipped) unchanged++;
          continue;
        }
        if (prev !== undefined && st.size > 0) {
          let hash: string | undefined;
          try {
            hash = hashFile(abs);
          } catch {
            hash = undefined;
          }
          if (hash === prev.hash) {
            this.q.touchFile.run(st.size, st.mtimeMs, rel);
            if (!prev.skipped) unchanged++;
            continue;
          }
        }
        if (prev !== undefined) this.drop(rel);
        const ok = this.ingestFile(rel, abs, st.size, st.mtimeMs);
        if (ok) read++;
        processed.add(rel);
      }
      // a file that lost a duplicate-id contest may win it now that another file changed or went away
      if (processed.size > 0 || removed > 0) {
        for (const f of this.q.files.all()) {
          if (processed.has(f.path) || !f.problems.includes('"duplicate_id"')) continue;
          const abs = join(this.dir, f.path);
          let st;
          try {
            st = statSync(abs);
          } catch {
            continue;
          }
          const wasSkipped = f.skipped === 1;
          this.drop(f.path);
          const ok = this.ingestFile(f.path, abs, st.size, st.mtimeMs);
          if (!wasSkipped) unchanged--;
          if (ok) read++;
        }
      }
    });
    try {
      ingest.immediate();
    } finally {
      this.prefetch?.close();
      this.prefetch = undefined;
    }
    this.summary = this.currentSummary(read, unchanged, removed);
    return this.summary;
  }

  private drop(rel: string): void {
    for (const stmt of this.q.dropFile) stmt.run(rel);
  }

  /** Ingest one file; a problem removes what it wrote and marks it skipped. */
  private ingestFile(rel: string, abs: string, size: number, mtime: number): boolean {
    const kind = kindOf(rel);
    let hash = "";
    const problems: IngestProblem[] = [];
    try {
      if (kind === null)
        throw new FileProblem("unrecognized_file", "not a workspace file (see DESIGN.md §6 for the layout)");
      hash = this.readInto(kind, rel, abs, size, problems);
      this.q.upsertFile.run(rel, size, mtime, hash, 0, JSON.stringify(problems));
      return true;
    } catch (err) {
      if (!(err instanceof FileProblem)) throw err;
      // INVARIANT: every row a reader writes carries its file (records, runs and logs are
      // INSERT OR IGNORE, so no other file's row is touched): deleting by file undoes a half-read
      // file, as a savepoint would, without a savepoint per file
      this.drop(rel);
      let h = hash;
      if (h === "") {
        try {
          h = hashFile(abs);
        } catch {
          h = "";
        }
      }
      this.q.upsertFile.run(
        rel,
        size,
        mtime,
        h,
        1,
        JSON.stringify([{ file: rel, code: err.code, message: err.message }]),
      );
      return false;
    }
  }

  private readInto(kind: Kind, rel: string, abs: string, size: number, problems: IngestProblem[]): string {
    const dup = (id: string): never => {
      throw new FileProblem("duplicate_id", `record \`${id}\` is already defined by another file`);
    };
    if (kind === "log") return this.readLog(rel, abs, size, stem(rel));
    const { text, hash } = readTextFile(abs, size);
    switch (kind) {
      case "run": {
        const { info, record: rec } = parseRun(text, stem(rel), rel, hash);
        if (!this.put(rec.id, rel, "run", info.id, 0, rec)) dup(rec.id);
        this.q.insertRun.run(info.id, rel, info.createdAt, JSON.stringify(info));
        break;
      }
      case "pr": {
        const { info, record: rec } = parsePr(text, stem(rel), rel, hash);
        if (!this.put(rec.id, rel, "pr", info.number, 0, rec)) dup(rec.id);
        break;
      }
      case "diff":
      case "commit-diff": {
        const owner = stem(rel);
        if (!SAFE_ID.test(owner))
          throw new FileProblem("invalid_id", `diff file name \`${owner}\` must be a PR number or commit sha`);
        const recs = parseDiffRecords(text, kind === "diff" ? "pr" : "commit", owner, rel, hash);
        recs.forEach((r, i) => {
          if (!this.put(r.id, rel, "hunk", owner, i, r)) dup(r.id);
        });
        break;
      }
      case "ticket":
      case "tickets": {
        const recs = parseTickets(text, kind === "ticket" ? stem(rel) : undefined, rel, hash);
        recs.forEach((r, i) => {
          if (!this.put(r.id, rel, "ticket", r.id.slice("ticket:".length), i, r)) {
            problems.push({
              file: rel,
              code: "duplicate_id",
              message: `ticket \`${r.id}\` is already defined; this one is skipped`,
            });
          }
        });
        break;
      }
      case "commit": {
        const rec = parseCommit(text, stem(rel), rel, hash);
        if (!this.put(rec.id, rel, "commit", stem(rel), 0, rec)) dup(rec.id);
        break;
      }
    }
    return hash;
  }

  /** Stream a log (logscan.ts): store its error-bearing lines (capped) and its signature line. */
  private readLog(rel: string, abs: string, size: number, run: string): string {
    if (!SAFE_ID.test(run)) throw new FileProblem("invalid_id", `log file name \`${run}\` must be a run id`);
    if (this.q.log.get(run) !== undefined)
      throw new FileProblem("duplicate_id", `run \`${run}\` already has a log from another file`);
    let stored = 0;
    const storedLines = new Set<number>();
    const store = (l: ScanLine, tier: string | null, rule: string | null): void => {
      const rec = record(logId(run, l.line), rel, logLocator(run, l.job, l.step, l.line), l.text);
      this.put(rec.id, rel, "log", run, l.line, rec, tier, rule);
      storedLines.add(l.line);
    };
    const pre = this.prefetch?.take(abs);
    let info: ReadInfo;
    let sig: Signature<ScanLine> | undefined;
    if (pre === undefined) {
      ({ info, signature: sig } = scanLog(
        abs,
        (l, cls) => {
          if (stored < MAX_STORED_LINES_PER_LOG) {
            stored++;
            store(l, cls.tier, cls.rule);
          }
        },
        size,
      ));
    } else if (pre.ok) {
      // the worker kept the first MAX_STORED_LINES_PER_LOG classified lines, as the loop above does
      for (const [l, cls] of pre.lines) store(l, cls.tier, cls.rule);
      ({ info, signature: sig } = pre);
    } else if (pre.code !== null) {
      throw new FileProblem(pre.code, pre.message);
    } else {
      throw new Error(pre.message);
    }
    // the signature and its ranked alternatives are always stored, so each can be cited
    for (const r of sig?.ranked ?? []) if (!storedLines.has(r.line.line)) store(r.line, null, null);
    const ranking = sig?.ranked.map((r) => ({
      id: logId(run, r.line.line),
      rule: r.rule,
      score: r.score,
      reasons: r.reasons,
    }));
    // records of a log carry no revision: the file hash is kept in `files`, and a line's id and text fix it
    this.q.insertLog.run(
      run,
      rel,
      sig === undefined ? null : logId(run, sig.line.line),
      sig?.basis ?? null,
      ranking === undefined ? null : JSON.stringify(ranking),
    );
    return info.hash;
  }

  /** `unchanged` null: the store as found, every ingested file counted unchanged. */
  private currentSummary(read: number, unchanged: number | null, removed: number): IngestSummary {
    const problems: IngestProblem[] = [];
    let skipped = 0;
    let files = 0;
    for (const f of this.q.files.all()) {
      files++;
      if (f.skipped) skipped++;
      problems.push(...(JSON.parse(f.problems) as IngestProblem[]));
    }
    // cross-file problems: a failed run without its log, a log without its run
    const logs = new Set(
      this.db
        .prepare<[], { run: string }>("SELECT run FROM logs")
        .all()
        .map((r) => r.run),
    );
    const runs = this.db.prepare<[], { id: string; file: string; conclusion: string }>(
      "SELECT id, file, json_extract(info, '$.conclusion') AS conclusion FROM runs",
    );
    for (const row of runs.all()) {
      if (FAILED_CONCLUSIONS.includes(row.conclusion) && !logs.has(row.id)) {
        problems.push({
          file: row.file,
          code: "run_without_log",
          message: `failed run \`${row.id}\` has no log (logs/${row.id}.log)`,
        });
      }
    }
    for (const row of this.db
      .prepare<[], { run: string; file: string }>(
        "SELECT l.run, l.file FROM logs l LEFT JOIN runs u ON u.id = l.run WHERE u.id IS NULL",
      )
      .all()) {
      problems.push({
        file: row.file,
        code: "log_without_run",
        message: `log of run \`${row.run}\` has no run file (runs/${row.run}.json); it cannot be analysed`,
      });
    }
    const orphanDiffs = this.db.prepare<[], { file: string; owner: string }>(
      `SELECT DISTINCT h.file, h.owner FROM records h
        WHERE h.type = 'hunk' AND NOT EXISTS (SELECT 1 FROM records c WHERE c.id = (CASE WHEN h.file LIKE 'prs/%' THEN 'pr:' ELSE 'commit:' END) || h.owner)`,
    );
    for (const row of orphanDiffs.all()) {
      const what = row.file.startsWith("prs/")
        ? `pull request \`${row.owner}\` (prs/${row.owner}.json)`
        : `commit \`${row.owner}\` (commits/${row.owner}.json)`;
      problems.push({
        file: row.file,
        code: "diff_without_change",
        message: `diff of ${what} has no metadata file; it cannot be summarized`,
      });
    }
    problems.sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
    );
    return {
      files,
      read,
      unchanged: unchanged ?? files - skipped,
      skipped,
      removed,
      records: this.q.count.get()!.n,
      problems,
    };
  }

  getRecord(id: string): EvidenceRecord | undefined {
    const r = this.q.record.get(id);
    return r === undefined ? undefined : toRecord(r);
  }

  getRun(id: string): RunInfo | undefined {
    const r = this.q.run.get(id);
    return r === undefined ? undefined : (JSON.parse(r.info) as RunInfo);
  }

  listRuns(): RunInfo[] {
    return this.q.runs.all().map((r) => JSON.parse(r.info) as RunInfo);
  }

  hasLog(run: string): boolean {
    return this.q.log.get(run) !== undefined;
  }

  logLines(run: string): LogLine[] {
    return this.q.logLines
      .all(run)
      .map((r) => ({ record: toRecord(r), line: r.seq, tier: (r.tier as LineTier | null) ?? null, rule: r.rule }));
  }

  signature(run: string): RunSignature | undefined {
    const l = this.q.log.get(run);
    if (l === undefined || l.signature === null) return undefined;
    const rec = this.getRecord(l.signature);
    if (rec === undefined) return undefined;
    const ranked: RankedRecord[] = [];
    for (const r of JSON.parse(l.ranking ?? "[]") as {
      id: string;
      rule: string;
      score: number;
      reasons: ScoreReason[];
    }[]) {
      const record = this.getRecord(r.id);
      if (record !== undefined) ranked.push({ record, rule: r.rule, score: r.score, reasons: r.reasons });
    }
    return { record: rec, basis: l.basis as SignatureBasis, ranked };
  }

  findInEarlierLogs(fragment: string, before: string, limit: number): EvidenceRecord[] {
    const f = normalize(fragment);
    const run = this.getRun(before);
    if (f === "" || run === undefined || limit <= 0) return [];
    const out: EvidenceRecord[] = [];
    const seen = new Set<string>();
    for (const r of this.q.earlier.iterate(f, run.createdAt, run.createdAt, run.id, run.id, run.id)) {
      if (seen.has(r.owner) || !containsNormalized(f, r.norm)) continue;
      seen.add(r.owner);
      out.push(toRecord(r));
      if (out.length >= limit) break;
    }
    return out;
  }

  search(type: "pr" | "ticket" | "commit", fragment: string): EvidenceRecord[] {
    const f = normalize(fragment);
    if (f === "") return [];
    return this.q.search
      .all(type, f)
      .filter((r) => containsNormalized(f, r.norm))
      .map(toRecord);
  }

  getPr(n: string): EvidenceRecord | undefined {
    return this.getRecord(`pr:${n}`);
  }

  listPrs(): EvidenceRecord[] {
    return this.q.byType.all("pr").map(toRecord);
  }

  hunks(owner: string): EvidenceRecord[] {
    return this.q.byOwner.all("hunk", owner).map(toRecord);
  }

  listTickets(): EvidenceRecord[] {
    return this.q.byType.all("ticket").map(toRecord);
  }

  getCommit(shaOrPrefix: string): EvidenceRecord | undefined {
    const p = shaOrPrefix.toLowerCase();
    if (!/^[0-9a-f]{7,64}$/.test(p)) return undefined;
    const rows = this.q.commits.all(p, p);
    return rows.length === 1 ? toRecord(rows[0]!) : undefined;
  }

  listCommits(): EvidenceRecord[] {
    return this.q.byType.all("commit").map(toRecord);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
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

function openDb(Driver: typeof Database, path: string): { db: Database.Database; fresh: boolean } {
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

/**
 * Open a workspace directory, ingesting it into `<dir>/.tessera/evidence.db` on first use and
 * refreshing what changed since (unless `refresh: false`).
 * @example const ws = await openWorkspace("examples/ci-workspace"); ws.getRecord("run:7001"); ws.close();
 */
export async function openWorkspace(dir: string, options: OpenOptions = {}): Promise<Workspace> {
  const abs = resolve(dir);
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new TesseraError("workspace_not_found", `no such workspace folder \`${dir}\``);
  }
  if (!st.isDirectory()) throw new TesseraError("workspace_not_found", `workspace \`${dir}\` is not a folder`);
  mkdirSync(join(abs, ".tessera"), { recursive: true });
  // loaded here, not at import time, so importing the package root loads no database driver
  const { default: Driver } = await import("better-sqlite3");
  const { db, fresh } = openDb(Driver, join(abs, ".tessera", "evidence.db"));
  const ws = new SqliteWorkspace(abs, db);
  try {
    if (fresh || options.refresh !== false) ws.refresh();
  } catch (err) {
    ws.close();
    throw err;
  }
  return ws;
}
