/**
 * Stable ids and locators for workspace evidence (specs/workspace.md). Every record a workspace stores is
 * built here, so an id always names the same piece of evidence across ingests and processes.
 * @module
 */
import type { EvidenceRecord, Locator } from "../core/index.js";

/** Locator kinds of workspace records. */
export type LocatorKind = "run" | "log-line" | "pr" | "diff-hunk" | "ticket" | "commit";

/** Record types, as stored (one per locator kind). */
export type RecordType = "run" | "log" | "pr" | "hunk" | "ticket" | "commit";

/** `run:<id>` */
export const runId = (run: string): string => `run:${run}`;
/** `log:<run>:<line>` (line numbers are 1-based, counted in the log file) */
export const logId = (run: string, line: number): string => `log:${run}:${line}`;
/** `pr:<n>` */
export const prId = (n: string): string => `pr:${n}`;
/** `hunk:<owner>:<file>:<k>` — owner is a PR number or a commit sha; k counts hunks per file from 1 */
export const hunkId = (owner: string, file: string, k: number): string => `hunk:${owner}:${file}:${k}`;
/** `ticket:<id>` */
export const ticketId = (id: string): string => `ticket:${id}`;
/** `commit:<sha>` */
export const commitId = (sha: string): string => `commit:${sha}`;

function locator(kind: LocatorKind, parts: [string, string][]): Locator {
  return { kind, parts };
}

/** Build a record with its fields in contract order (`revision` only when known). */
export function record(id: string, source: string, loc: Locator, text: string, revision?: string): EvidenceRecord {
  return revision === undefined ? { id, source, locator: loc, text } : { id, source, locator: loc, text, revision };
}

/** Locator of a run. */
export const runLocator = (run: string): Locator => locator("run", [["run", run]]);
/** Locator of one log line: run, job, step (`-` when the log does not say), 1-based line. */
export const logLocator = (run: string, job: string, step: string, line: number): Locator =>
  locator("log-line", [
    ["run", run],
    ["job", job],
    ["step", step],
    ["line", String(line)],
  ]);
/** Locator of a pull request. */
export const prLocator = (n: string): Locator => locator("pr", [["pr", n]]);
/** Locator of a diff hunk of a PR (`owner` `pr`) or a commit (`owner` `commit`). */
export const hunkLocator = (ownerKind: "pr" | "commit", owner: string, file: string, header: string): Locator =>
  locator("diff-hunk", [
    [ownerKind, owner],
    ["file", file],
    ["hunk", header],
  ]);
/** Locator of a ticket. */
export const ticketLocator = (id: string): Locator => locator("ticket", [["ticket", id]]);
/** Locator of a commit. */
export const commitLocator = (sha: string): Locator => locator("commit", [["commit", sha]]);
