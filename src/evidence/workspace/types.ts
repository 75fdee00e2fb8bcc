/**
 * The workspace's public types: what a refresh reports and what a query returns.
 * @module
 */
import type { EvidenceRecord } from "../../core/index.js";
import type { RunInfo } from "../readers.js";
import type { LineTier, ScoreReason, SignatureBasis } from "../signatures.js";

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
  readonly ranked: readonly RankedRecord[];
  readonly record: EvidenceRecord;
  readonly basis: SignatureBasis;
}

/** How the last refresh found out what changed. */
export interface RefreshInfo {
  /**
   * `full`: every file was listed and stat'ed; `watched`: this process's watch of the folder saw
   * no change since its last full refresh, so nothing was (adr/0110); `none`: not refreshed yet.
   */
  readonly mode: "full" | "watched" | "none";
  /** Workspace files whose metadata the refresh read. */
  readonly statted: number;
}

/** An ingested workspace. Not safe to share across threads; close it when done. */
export interface Workspace {
  /** The workspace directory (absolute). */
  readonly dir: string;
  /** The summary of the last refresh (or of the state found, when opened without refreshing). */
  readonly summary: IngestSummary;
  /** How the last refresh found out what changed. */
  readonly lastRefresh: RefreshInfo;
  /** Re-scan the directory and ingest what changed. */
  refresh(): IngestSummary;
  /**
   * Refresh, unless this process has watched the folder since its last full refresh and seen no
   * change (adr/0110); otherwise as `refresh`, and start watching.
   */
  refreshChanged(): Promise<IngestSummary>;
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
