/**
 * Row ↔ record mapping and review ids, shared by the SQLite and Postgres stores.
 * @module
 */
import { randomBytes } from "node:crypto";
import { TesseraError } from "../platform/errors.js";
import { MAX_DURATION_MS } from "./duration.js";
import {
  DEFAULT_REVIEW_TTL_MS,
  type HoldExplained,
  type HoldReason,
  type NewHold,
  type ReviewRecord,
  type ReviewState,
  type ToolPin,
} from "./types.js";

/** A new review id: `rv_` and 12 hex digits, short enough to type at a terminal. */
export function newReviewId(): string {
  return `rv_${randomBytes(6).toString("hex")}`;
}

/** The columns a new (pending) review sets, in the order of `holdValues`. */
export const HOLD_COLUMNS =
  "id, tool, arguments_digest, policy_digest, effective_digest, context_digest, arguments_json, reasons_json, approval_ttl_ms, created_at, expires_at, explained_json";

/**
 * A row's deadline in SQL. A pending row without one — held before reviews expired, or by an older
 * gateway still sharing the store — waits the default time from when it was held, never forever.
 */
export const DEADLINE = `COALESCE(expires_at, created_at + ${DEFAULT_REVIEW_TTL_MS})`;

/**
 * The SQL condition of the rows `reviewOf` reads as `state` at the time bound by `now` (a
 * placeholder: `?` in SQLite, `$n` in Postgres; it may appear twice). A stored `pending` row past
 * its DEADLINE and a stored `approved` row past `expires_at` read as `expired`, so the filter gives
 * exactly the rows loading every row and filtering `reviewOf` would (test/gateway/list.drt.test.ts).
 */
export function stateCondition(state: ReviewState, now: string): string {
  switch (state) {
    case "pending":
      return `(state = 'pending' AND ${DEADLINE} > ${now})`;
    // an approval's deadline is its `expires_at` alone (none: it never lapses), which DEADLINE is
    // whenever `expires_at` is set: written with DEADLINE, the conditions can use its index
    case "approved":
      return `(state = 'approved' AND (${DEADLINE} > ${now} OR expires_at IS NULL))`;
    case "expired":
      return `(state = 'expired' OR (state = 'pending' AND ${DEADLINE} <= ${now}) OR (state = 'approved' AND expires_at IS NOT NULL AND ${DEADLINE} <= ${now}))`;
    default:
      return `(state = '${state === "denied" ? "denied" : "consumed"}')`;
  }
}

/** A positive whole `limit`, or a usage error. */
export function checkLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new TesseraError("invalid_limit", `limit must be a positive whole number, got \`${limit}\``);
  return limit;
}

/** The error of a page whose `after` names no review. */
export function unknownCursor(id: string): TesseraError {
  return new TesseraError("review_not_found", `no review \`${id}\` to list after`);
}

/** The states a stored row may have (`expired` is stored once a newer hold of the same call replaces it). */
export const STORED_STATES = "'pending', 'approved', 'denied', 'consumed', 'expired'";

/** The values of `HOLD_COLUMNS` for a new review of `input`, held at `now`, with a fresh id. */
export function holdValues(input: NewHold, now: number): unknown[] {
  return [
    newReviewId(),
    input.tool,
    input.arguments_digest,
    input.policy_digest,
    input.effective_digest ?? "",
    input.context_digest,
    JSON.stringify(input.arguments),
    JSON.stringify(input.reasons),
    input.approval_ttl_ms,
    now,
    now + checkTtl(input.review_ttl_ms, "review"),
    input.explained === undefined ? null : JSON.stringify(input.explained),
  ];
}

/** A review row as both stores return it (bigint columns arrive as strings from Postgres). */
export interface ReviewRow {
  id: string;
  state: string;
  tool: string;
  arguments_digest: string;
  policy_digest: string;
  effective_digest: string;
  context_digest: string;
  arguments_json: string;
  reasons_json: string;
  approval_ttl_ms: number | string;
  created_at: number | string;
  decided_at: number | string | null;
  decided_by: string | null;
  /** Absent in rows read through a column list from before denials carried a reason. */
  decision_reason?: string | null;
  expires_at: number | string | null;
  consumed_at: number | string | null;
  /** Absent in rows read without it (queue pages, column lists from before it was stored). */
  explained_json?: string | null;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** The record of a row; a pending review or an approval past its expiry reads as `expired`. */
export function reviewOf(row: ReviewRow, now: number): ReviewRecord {
  const expires =
    num(row.expires_at) ?? (row.state === "pending" ? Number(row.created_at) + DEFAULT_REVIEW_TTL_MS : null); // as DEADLINE
  const lapsed = (row.state === "approved" || row.state === "pending") && expires !== null && expires <= now;
  const state = (lapsed ? "expired" : row.state) as ReviewState;
  return {
    id: row.id,
    state,
    tool: row.tool,
    arguments_digest: row.arguments_digest,
    policy_digest: row.policy_digest,
    effective_digest: row.effective_digest,
    context_digest: row.context_digest,
    arguments: JSON.parse(row.arguments_json) as Record<string, unknown>,
    reasons: JSON.parse(row.reasons_json) as HoldReason[],
    approval_ttl_ms: Number(row.approval_ttl_ms),
    created_at: Number(row.created_at),
    decided_at: num(row.decided_at),
    decided_by: row.decided_by,
    decision_reason: row.decision_reason ?? null,
    expires_at: expires,
    consumed_at: num(row.consumed_at),
    explained:
      row.explained_json === undefined || row.explained_json === null
        ? null
        : (JSON.parse(row.explained_json) as HoldExplained),
  };
}

/** A pin row as both stores return it. */
export interface PinRow {
  tool: string;
  digest: string;
  definition_json: string;
  pinned_at: number | string;
  pending_digest: string | null;
  pending_definition_json: string | null;
  changed_at: number | string | null;
}

/** The record of a pin row. */
export function pinOf(row: PinRow): ToolPin {
  return {
    tool: row.tool,
    digest: row.digest,
    definition: JSON.parse(row.definition_json) as unknown,
    pinned_at: Number(row.pinned_at),
    pending_digest: row.pending_digest,
    pending_definition:
      row.pending_definition_json === null ? null : (JSON.parse(row.pending_definition_json) as unknown),
    changed_at: num(row.changed_at),
  };
}

/** Why a review cannot be approved or denied, as a typed error. */
export function notActionable(record: ReviewRecord | null, id: string, verb: "approve" | "deny"): TesseraError {
  if (record === null) return new TesseraError("review_not_found", `no review \`${id}\``);
  return new TesseraError("review_not_pending", `cannot ${verb} review \`${id}\`: it is ${record.state}`);
}

/**
 * Why a tool's pending definition cannot be approved with `digest`: no such tool, nothing pending, or
 * the pending definition is not the one the reviewer saw (it changed since they looked).
 */
export function notApprovable(tool: string, digest: string, current: PinRow | null): TesseraError {
  if (current === null) return new TesseraError("tool_not_pinned", `no pinned tool \`${tool}\``);
  if (current.pending_digest === null)
    return new TesseraError("tool_not_changed", `tool \`${tool}\` has no changed definition to approve`);
  return new TesseraError(
    "tool_digest_mismatch",
    `the pending definition of \`${tool}\` is ${current.pending_digest}, not ${digest}: it changed since you looked, nothing was approved (see \`tessera review tools\`)`,
  );
}

/** The longest deny reason, in characters: a sentence or two for the agent, not a document. */
export const MAX_DENY_REASON = 500;

/**
 * A deny reason as stored: trimmed, one line of printable text, at most `MAX_DENY_REASON`
 * characters; empty or absent is null. Anything else is a usage error, so nothing is cut silently.
 */
export function checkDenyReason(reason: string | undefined): string | null {
  if (reason === undefined) return null;
  const text = reason.trim();
  if (text === "") return null;
  if ([...text].length > MAX_DENY_REASON)
    throw new TesseraError("invalid_reason", `a deny reason is at most ${MAX_DENY_REASON} characters`);
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(text))
    throw new TesseraError("invalid_reason", "a deny reason is one line of text without control characters");
  return text;
}

/** A positive whole number of milliseconds of at most `MAX_DURATION_MS` (366 days), or a usage error. */
export function checkTtl(ttlMs: number, what: "approval" | "review" = "approval"): number {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new TesseraError("invalid_ttl", `${what} ttl must be a positive number of milliseconds, got \`${ttlMs}\``);
  if (ttlMs > MAX_DURATION_MS)
    throw new TesseraError("invalid_ttl", `${what} ttl is at most 366 days (${MAX_DURATION_MS} ms), got \`${ttlMs}\``);
  return ttlMs;
}
