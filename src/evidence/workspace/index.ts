/**
 * The workspace store: a directory of CI runs, logs, pull requests, diffs, tickets and commits,
 * ingested into `<dir>/.tessera/evidence.db` (SQLite, WAL) on first use and refreshed
 * incrementally — a file is re-read only when its size or mtime changed and its content hash
 * differs (specs/workspace.md). `types.ts` holds the public types, `layout.ts` the folders,
 * `store.ts` the schema and statements, `ingest.ts` the refresh and the reader of each kind,
 * `diagnostics.ts` the summary and its problems, `sqlite-workspace.ts` the queries.
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
  const { db, fresh } = openDb(Driver, join(abs, ".tessera", "evidence.db"), (old) =>
    indexAllLogs({ dir: abs, db: old, q: prepareStatements(old), prefetch: undefined, storedMtime: (m) => m }),
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
