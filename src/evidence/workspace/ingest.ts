/**
 * Ingesting a workspace into its store: the refresh that finds what changed, and the readers of
 * each kind of file that write its records (specs/workspace.md).
 * @module
 */
import { type Stats, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EvidenceRecord, normalize } from "../../core/index.js";
import { TesseraError } from "../../platform/errors.js";
import { canPrefetch, LogPrefetch, prefetchTuning } from "../logprefetch.js";
import { type ScanLine, scanLog } from "../logscan.js";
import { logId, logLocator, type RecordType, record } from "../records.js";
import { parseCommit, parseDiffRecords, parsePr, parseRun, parseTickets, SAFE_ID } from "../readers.js";
import type { Signature } from "../signatures.js";
import { FileProblem, hashFile, type ReadInfo, readTextFile } from "../text.js";
import { listFiles, stem, type WorkspaceFileKind, workspaceFileKind } from "./layout.js";
import { type FileRow, MAX_STORED_LINES_PER_LOG, type StoreContext } from "./store.js";
import { dropTermsOf, flushTermCounts, indexRunLog } from "./terms.js";
import type { IngestProblem } from "./types.js";

/** What one refresh changed, before the store is summarized. */
export interface RefreshCounts {
  readonly read: number;
  readonly unchanged: number;
  readonly removed: number;
  /** Workspace files whose metadata this refresh read (stat). */
  readonly statted: number;
  /** Whether a file is a symbolic link or has other hard links (changes a folder watch cannot see). */
  readonly linked: boolean;
}

/**
 * A file modified this close to the refresh (or later) may be rewritten again within the same
 * clock tick, with the same size and time: its time is not trusted, so the next refresh hashes it
 * (the "racily clean" rule; 2 s covers the coarsest file-system timestamps).
 */
export const RACY_MARGIN_MS = 2000;

/** The file system's own clock now, as a file written in the store folder sees it. */
function fsClock(s: StoreContext): number {
  const clock = join(s.dir, ".tessera", "clock");
  try {
    writeFileSync(clock, "");
    return statSync(clock).mtimeMs;
  } catch {
    // a store folder that cannot take the file: the process clock, a minute ahead to be safe
    return Date.now() + 60_000;
  }
}

/**
 * Re-scan the workspace folder and ingest what changed, in one transaction: a file is re-read only
 * when its size or mtime changed and its content hash differs; a vanished folder is an error.
 */
export function refreshStore(s: StoreContext): RefreshCounts {
  let read = 0;
  let removed = 0;
  let unchanged = 0;
  let statted = 0;
  let linked = false;
  const processed = new Set<string>();
  // a vanished folder is an error, never "every file was removed"
  let st;
  try {
    st = statSync(s.dir);
  } catch {
    st = undefined;
  }
  if (st === undefined || !st.isDirectory())
    throw new TesseraError("workspace_not_found", `no such workspace folder \`${s.dir}\``);
  const ingest = s.db.transaction(() => {
    const racyFrom = fsClock(s) - RACY_MARGIN_MS;
    s.storedMtime = (mtime) => (mtime < racyFrom ? mtime : -1);
    s.q.bumpGeneration.run();
    const present = listFiles(s.dir, () => {
      linked = true;
    });
    const presentSet = new Set(present);
    // every stored file row in one query (ingesting one file never changes another's row)
    const rows = new Map<string, FileRow>();
    for (const f of s.q.fileRows.all()) {
      if (presentSet.has(f.path)) rows.set(f.path, f);
      else {
        drop(s, f.path);
        removed++;
      }
    }
    // each file's absolute path, kind, stat and stored row, found once
    const stats = new Map<
      string,
      { abs: string; kind: WorkspaceFileKind | null; st: Stats; prev: FileRow | undefined }
    >();
    const toScan: string[] = [];
    const toScanSizes: number[] = [];
    let scanBytes = 0;
    let allLogBytes = 0;
    const look = (rel: string, kind: WorkspaceFileKind | null): void => {
      try {
        const abs = join(s.dir, rel);
        const st = statSync(abs);
        statted++;
        if (st.nlink > 1) linked = true;
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
    const kinds = present.map(workspaceFileKind);
    for (let i = 0; i < present.length; i++) if (kinds[i] === "log") look(present[i]!, "log");
    // many MB of logs: a worker scans them ahead on the second core while this thread writes
    if (toScan.length > 1 && allLogBytes >= prefetchTuning.minBytes && canPrefetch())
      s.prefetch = new LogPrefetch(toScan, toScanSizes, MAX_STORED_LINES_PER_LOG);
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
      if (prev !== undefined) {
        let hash: string | undefined;
        try {
          hash = hashFile(abs);
        } catch {
          hash = undefined;
        }
        if (hash === prev.hash) {
          s.q.touchFile.run(st.size, s.storedMtime(st.mtimeMs), rel);
          if (!prev.skipped) unchanged++;
          continue;
        }
      }
      if (prev !== undefined) drop(s, rel);
      const ok = ingestFile(s, rel, abs, st.size, st.mtimeMs);
      if (ok) read++;
      processed.add(rel);
    }
    // a file that lost a duplicate-id contest may win it now that another file changed or went away
    if (processed.size > 0 || removed > 0) {
      for (const f of s.q.files.all()) {
        if (processed.has(f.path) || !f.problems.includes('"duplicate_id"')) continue;
        const abs = join(s.dir, f.path);
        let st;
        try {
          st = statSync(abs);
          statted++;
        } catch {
          continue;
        }
        const wasSkipped = f.skipped === 1;
        drop(s, f.path);
        const ok = ingestFile(s, f.path, abs, st.size, st.mtimeMs);
        if (!wasSkipped) unchanged--;
        if (ok) read++;
      }
    }
    flushTermCounts(s);
  });
  try {
    ingest.immediate();
  } finally {
    s.prefetch?.close();
    s.prefetch = undefined;
    // a refresh that failed rolled its counts back with its postings
    s.termCounts.clear();
  }
  return { read, unchanged, removed, statted, linked };
}

function put(
  s: StoreContext,
  id: string,
  file: string,
  type: RecordType,
  owner: string,
  seq: number,
  rec: EvidenceRecord,
  tier: string | null = null,
  rule: string | null = null,
): boolean {
  const info = s.q.insert.run(
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

function drop(s: StoreContext, rel: string): void {
  dropTermsOf(s, rel);
  for (const stmt of s.q.dropFile) stmt.run(rel);
}

/** Ingest one file; a problem removes what it wrote and marks it skipped. */
function ingestFile(s: StoreContext, rel: string, abs: string, size: number, mtime: number): boolean {
  const kind = workspaceFileKind(rel);
  let hash = "";
  const problems: IngestProblem[] = [];
  try {
    if (kind === null)
      throw new FileProblem("unrecognized_file", "not a workspace file (see specs/workspace.md for the layout)");
    hash = readInto(s, kind, rel, abs, size, problems);
    s.q.upsertFile.run(rel, size, s.storedMtime(mtime), hash, 0, JSON.stringify(problems));
    return true;
  } catch (err) {
    if (!(err instanceof FileProblem)) throw err;
    // INVARIANT: every row a reader writes carries its file (records, runs and logs are
    // INSERT OR IGNORE, so no other file's row is touched): deleting by file undoes a half-read
    // file, as a savepoint would, without a savepoint per file
    drop(s, rel);
    let h = hash;
    if (h === "") {
      try {
        h = hashFile(abs);
      } catch {
        h = "";
      }
    }
    s.q.upsertFile.run(
      rel,
      size,
      s.storedMtime(mtime),
      h,
      1,
      JSON.stringify([{ file: rel, code: err.code, message: err.message }]),
    );
    return false;
  }
}

function readInto(
  s: StoreContext,
  kind: WorkspaceFileKind,
  rel: string,
  abs: string,
  size: number,
  problems: IngestProblem[],
): string {
  const dup = (id: string): never => {
    throw new FileProblem("duplicate_id", `record \`${id}\` is already defined by another file`);
  };
  if (kind === "log") return readLog(s, rel, abs, size, stem(rel));
  const { text, hash } = readTextFile(abs, size);
  switch (kind) {
    case "run": {
      const { info, record: rec } = parseRun(text, stem(rel), rel, hash);
      if (!put(s, rec.id, rel, "run", info.id, 0, rec)) dup(rec.id);
      s.q.insertRun.run(info.id, rel, info.createdAt, JSON.stringify(info));
      indexRunLog(s, info.id);
      break;
    }
    case "pr": {
      const { info, record: rec } = parsePr(text, stem(rel), rel, hash);
      if (!put(s, rec.id, rel, "pr", info.number, 0, rec)) dup(rec.id);
      break;
    }
    case "diff":
    case "commit-diff": {
      const owner = stem(rel);
      if (!SAFE_ID.test(owner))
        throw new FileProblem("invalid_id", `diff file name \`${owner}\` must be a PR number or commit sha`);
      const recs = parseDiffRecords(text, kind === "diff" ? "pr" : "commit", owner, rel, hash);
      recs.forEach((r, i) => {
        if (!put(s, r.id, rel, "hunk", owner, i, r)) dup(r.id);
      });
      break;
    }
    case "ticket":
    case "tickets": {
      const recs = parseTickets(text, kind === "ticket" ? stem(rel) : undefined, rel, hash);
      recs.forEach((r, i) => {
        if (!put(s, r.id, rel, "ticket", r.id.slice("ticket:".length), i, r)) {
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
      if (!put(s, rec.id, rel, "commit", stem(rel), 0, rec)) dup(rec.id);
      break;
    }
  }
  return hash;
}

/** Stream a log (logscan.ts): store its error-bearing lines (capped) and its signature line. */
function readLog(s: StoreContext, rel: string, abs: string, size: number, run: string): string {
  if (!SAFE_ID.test(run)) throw new FileProblem("invalid_id", `log file name \`${run}\` must be a run id`);
  if (s.q.log.get(run) !== undefined)
    throw new FileProblem("duplicate_id", `run \`${run}\` already has a log from another file`);
  let stored = 0;
  const storedLines = new Set<number>();
  const store = (l: ScanLine, tier: string | null, rule: string | null): void => {
    const rec = record(logId(run, l.line), rel, logLocator(run, l.job, l.step, l.line), l.text);
    put(s, rec.id, rel, "log", run, l.line, rec, tier, rule);
    storedLines.add(l.line);
  };
  const pre = s.prefetch?.take(abs);
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
  s.q.insertLog.run(
    run,
    rel,
    sig === undefined ? null : logId(run, sig.line.line),
    sig?.basis ?? null,
    ranking === undefined ? null : JSON.stringify(ranking),
  );
  indexRunLog(s, run);
  return info.hash;
}
