/**
 * What a reviewer does, each step stored and then audited: approve or deny a held call, accept a
 * changed tool definition. The CLI and library users call these rather than the store directly.
 * @module
 */
import { callReviewEvent, REVIEW_EVENT, toolReviewEvent } from "./events.js";
import type { DenyOptions, ReviewRecord, ReviewStore, ToolPin } from "./types.js";

/** Where review events go (the audit log). */
export interface ReviewAudit {
  /** Append one review event. */
  append(type: string, payload: Record<string, unknown>): unknown;
}

/** Approve a pending review; the approval expires after `ttlMs` (default: the TTL the gateway set). */
export async function approveReview(
  store: ReviewStore,
  audit: ReviewAudit,
  id: string,
  by: string,
  now: number,
  ttlMs?: number,
): Promise<ReviewRecord> {
  const r = await store.approve(id, by, now, ttlMs);
  await audit.append(REVIEW_EVENT, callReviewEvent("approved", r));
  return r;
}

/**
 * Deny a pending review (or revoke an unused approval, unless `options.pendingOnly`), with an optional
 * reason the agent is shown.
 */
export async function denyReview(
  store: ReviewStore,
  audit: ReviewAudit,
  id: string,
  by: string,
  now: number,
  reason?: string,
  options?: DenyOptions,
): Promise<ReviewRecord> {
  const r = await store.deny(id, by, now, reason, options);
  await audit.append(REVIEW_EVENT, callReviewEvent("denied", r));
  return r;
}

/**
 * Accept a tool's changed definition as its pin, only while the pending definition is still the
 * one whose digest the reviewer names (`digest`, the full `sha256:…` that `tessera review tools` shows).
 */
export async function approveTool(
  store: ReviewStore,
  audit: ReviewAudit,
  tool: string,
  digest: string,
  by: string,
  now: number,
): Promise<ToolPin> {
  const before = (await store.tools()).find((p) => p.tool === tool);
  const pin = await store.approveTool(tool, digest, now);
  await audit.append(
    REVIEW_EVENT,
    toolReviewEvent("tool_approved", tool, pin.digest, before?.digest ?? pin.digest, by),
  );
  return pin;
}
