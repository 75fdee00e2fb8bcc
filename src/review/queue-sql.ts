/**
 * The SQL of the review page's queue, shared by the SQLite and Postgres stores: a page is
 * filtered (by `stateCondition` of records.ts) and counted in the store, never by loading
 * every row (10,000 pending holds must render a first page quickly, bench/review-page.mjs).
 * @module
 */
import { TesseraError } from "../platform/errors.js";
import { type QueueQuery, REVIEW_STATES } from "./types.js";

/** The columns a queue page reads: every column but the explained checks, which only a hold's page shows. */
export const QUEUE_COLUMNS =
  "id, state, tool, arguments_digest, policy_digest, effective_digest, context_digest, arguments_json, reasons_json, approval_ttl_ms, created_at, decided_at, decided_by, decision_reason, expires_at, consumed_at";

/** The most reviews one page holds. */
export const MAX_QUEUE_LIMIT = 500;

/** A queue query checked: a known state, a whole limit of 1 to `MAX_QUEUE_LIMIT`, a whole offset ≥ 0. */
export function checkQueueQuery(q: QueueQuery): QueueQuery {
  if (q.state !== undefined && !REVIEW_STATES.includes(q.state))
    throw new TesseraError("invalid_input", `unknown review state \`${String(q.state)}\``);
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > MAX_QUEUE_LIMIT)
    throw new TesseraError("invalid_input", `a queue page holds 1 to ${MAX_QUEUE_LIMIT} reviews, got \`${q.limit}\``);
  if (!Number.isSafeInteger(q.offset) || q.offset < 0)
    throw new TesseraError("invalid_input", `a queue offset is a whole number ≥ 0, got \`${q.offset}\``);
  return q;
}
