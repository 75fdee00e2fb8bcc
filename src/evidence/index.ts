/**
 * Workspace evidence: records with stable ids and locators, log cleaning, failure signatures,
 * readers for the formats of specs/workspace.md, the SQLite workspace store and git ingest.
 * @module
 */
export { exportGitRange, type GitExport } from "./git.js";
export { cleanLogLine, type CleanLine } from "./logs.js";
export {
  commitId,
  hunkId,
  type LocatorKind,
  logId,
  prId,
  type RecordType,
  runId,
  ticketId,
} from "./records.js";
export { FAILED_CONCLUSIONS, parseDiff, type Hunk, type PrInfo, type RunInfo } from "./readers.js";
export {
  classifyLine,
  isMeaningful,
  type LineClass,
  type LineTier,
  type RankedLine,
  type ScoreReason,
  type Signature,
  type SignatureBasis,
  SignatureSelector,
  selectSignature,
} from "./signatures.js";
export {
  type IngestProblem,
  type IngestSummary,
  type LogLine,
  MAX_STORED_LINES_PER_LOG,
  type OpenOptions,
  openWorkspace,
  type RankedRecord,
  type RefreshInfo,
  type RunSignature,
  type Workspace,
  withWorkspace,
} from "./workspace.js";
