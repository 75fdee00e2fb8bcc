/**
 * The workspace store: a directory of CI runs, logs, pull requests, diffs, tickets and commits,
 * ingested into `<dir>/.tessera/evidence.db` (SQLite, WAL) on first use and refreshed
 * incrementally — a file is re-read only when its size or mtime changed and its content hash
 * differs (specs/workspace.md). `types.ts` holds the public types, `layout.ts` the folders,
 * `store.ts` the schema and statements, `ingest.ts` the refresh and the reader of each kind,
 * `diagnostics.ts` the summary and its problems, `sqlite-workspace.ts` the queries, `terms.ts`
 * the term index of the earlier-log search, `watch.ts` the folder watch that lets a refresh of an
 * unchanged workspace skip the scan.
 * @module
 */
import { mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { TesseraError } from "../../platform/errors.js";
import { SqliteWorkspace } from "./sqlite-workspace.js";
import { openDb, prepareStatements } from "./store.js";
import { indexAllLogs } from "./terms.js";
import type { OpenOptions, Workspace } from "./types.js";

export { MAX_STORED_LINES_PER_LOG } from "./store.js";
export type {
  IngestProblem,
  IngestSummary,
  LogLine,
  OpenOptions,
  RankedRecord,
  RefreshInfo,
  RunSignature,
  Workspace,
} from "./types.js";

/**
 * Open a workspace directory, ingesting it into `<dir>/.tessera/evidence.db` on first use and
 * refreshing what changed since (unless `refresh: false`).
 * @example const ws = await openWorkspace("examples/ci-workspace"); ws.getRecord("run:7001"); ws.close();
 */
export async function openWorkspace(dir: string, options: OpenOptions = {}): Promise<Workspace> {
  const abs = folderOf(dir);
  mkdirSync(join(abs, ".tessera"), { recursive: true });
  // loaded here, not at import time, so importing the package root loads no database driver
  const { default: Driver } = await import("better-sqlite3");
  const { db, fresh } = openDb(Driver, join(abs, ".tessera", "evidence.db"), (old) =>
    indexAllLogs({
      dir: abs,
      db: old,
      q: prepareStatements(old),
      prefetch: undefined,
      storedMtime: (m) => m,
      termCounts: new Map(),
    }),
  );
  const ws = new SqliteWorkspace(abs, db);
  try {
    if (fresh || options.refresh !== false) await ws.refreshChanged();
  } catch (err) {
    ws.close();
    throw err;
  }
  return ws;
}

/** The absolute path of a workspace folder, or `workspace_not_found`. */
function folderOf(dir: string): string {
  const abs = resolve(dir);
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new TesseraError("workspace_not_found", `no such workspace folder \`${dir}\``);
  }
  if (!st.isDirectory()) throw new TesseraError("workspace_not_found", `workspace \`${dir}\` is not a folder`);
  return abs;
}

/** At most this many stores stay open between `withWorkspace` calls; the least recently used is closed. */
const MAX_SHARED = 8;

interface Shared {
  readonly ws: Workspace;
  /** The store file's inode when opened: another file at its path (a rebuilt store) is reopened. */
  readonly ino: number;
  busy: number;
}

const shared = new Map<string, Shared>();

const storeIno = (abs: string): number => {
  try {
    return statSync(join(abs, ".tessera", "evidence.db")).ino;
  } catch {
    return -1;
  }
};

/**
 * Run `fn` over the workspace at `dir`, refreshed as `openWorkspace` refreshes it; the store stays
 * open in this process for the next call, so an unchanged workspace costs neither a scan nor
 * opening the database (adr/0110). `fn` must not keep or close the workspace.
 * @example const runs = await withWorkspace("examples/ci-workspace", (ws) => ws.listRuns().length);
 */
export async function withWorkspace<T>(dir: string, fn: (ws: Workspace) => T): Promise<T> {
  const abs = folderOf(dir);
  let entry = shared.get(abs);
  if (entry !== undefined && entry.busy === 0 && storeIno(abs) !== entry.ino) {
    shared.delete(abs);
    entry.ws.close();
    entry = undefined;
  }
  if (entry === undefined) {
    const ws = await openWorkspace(dir);
    if (shared.has(abs)) {
      // another call opened it meanwhile: answer from this one, keep that one
      try {
        return fn(ws);
      } finally {
        ws.close();
      }
    }
    entry = { ws, ino: storeIno(abs), busy: 0 };
    shared.set(abs, entry);
    for (const [key, old] of shared) {
      if (shared.size <= MAX_SHARED) break;
      if (old.busy > 0 || key === abs) continue;
      shared.delete(key);
      old.ws.close();
    }
    return fn(ws);
  }
  shared.delete(abs);
  shared.set(abs, entry);
  entry.busy++;
  try {
    await entry.ws.refreshChanged();
    return fn(entry.ws);
  } catch (err) {
    if (shared.get(abs) === entry) shared.delete(abs);
    throw err;
  } finally {
    entry.busy--;
    if (shared.get(abs) !== entry && entry.busy === 0) entry.ws.close();
  }
}
