/**
 * The review queue's contract: held calls waiting for a human, approvals bound to the exact call,
 * and tool-definition pins. Implemented over SQLite (default) and Postgres (shared by several
 * gateway instances). Times are milliseconds since the epoch from the caller's clock.
 * @module
 */

/**
 * Where a review stands. A pending review past `expires_at` (no reviewer acted in time) and an
 * approval past `expires_at` (not used in time) are both `expired`.
 */
export type ReviewState = "pending" | "approved" | "denied" | "consumed" | "expired";

/** Why a call is held: a definitive mismatch that needs judgment, or verification that could not finish. */
export type HoldKind = "needs_judgment" | "verification_unavailable";

/** How `tessera review` explains each hold kind to the reviewer. */
export const HOLD_KIND_TEXT: Readonly<Record<HoldKind, string>> = {
  needs_judgment: "the source answered and the call does not match: it needs judgment",
  verification_unavailable: "verification was unavailable: the source could not be checked",
};

/** How long a held call waits for a reviewer by default: a day, then it expires unreviewed. */
export const DEFAULT_REVIEW_TTL_MS = 24 * 3_600_000;

/** One page of `ReviewStore.list`: at most `limit` reviews, after the review `after` (the last id of the page before). */
export interface ListPage {
  readonly limit?: number;
  readonly after?: string;
}

/** Every review state, in lifecycle order. */
export const REVIEW_STATES: readonly ReviewState[] = ["pending", "approved", "denied", "consumed", "expired"];

/** One check that held the call, with its codes (never argument or row values). */
export interface HoldReason {
  readonly kind: HoldKind;
  readonly argument: string;
  readonly check: number;
  readonly source: string | null;
  readonly status: string;
  readonly codes: readonly string[];
  readonly message: string | null;
}

/**
 * What the reviewer is shown of the held decision beyond its codes (adr/0116): every check as the
 * engine explained it (`explain: "values"`: conditions with expected and actual values, the grounded
 * argument's value) and the names (never the values) of the trusted context's keys.
 */
export interface HoldExplained {
  readonly checks: readonly unknown[];
  /** Null when the holder did not say (the framework adapters). */
  readonly context_keys: readonly string[] | null;
}

/**
 * Options of `ReviewStore.deny`. `pendingOnly`: deny only a pending review, never revoke an approval,
 * so an approval and a denial racing for one hold have exactly one winner (the review page).
 */
export interface DenyOptions {
  readonly pendingOnly?: boolean;
}

/** A filter and page of the review page's queue (`ReviewStore.queue`). */
export interface QueueQuery {
  /** Reviews in this state as it reads at `now`; absent: every state. */
  readonly state?: ReviewState;
  /** Reviews of this tool only. */
  readonly tool?: string;
  readonly limit: number;
  readonly offset: number;
}

/** The identity an approval is bound to. */
export interface CallKey {
  readonly tool: string;
  readonly arguments_digest: string;
  readonly policy_digest: string;
  /**
   * The digest of the policy after `${VAR}` interpolation (adr/0066): two deployments of one policy
   * file with different variables share `policy_digest`, never this. Absent: `""` (not bound to one).
   */
  readonly effective_digest?: string;
  /** The digest of the trusted context the gateway grounds with (the session the call came from). */
  readonly context_digest: string;
}

/** A call to put in the queue. */
export interface NewHold extends CallKey {
  /** The call's arguments, shown to the reviewer (the queue is operational data, not the audit log). */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly reasons: readonly HoldReason[];
  /** How long an approval of this call stays valid. */
  readonly approval_ttl_ms: number;
  /** How long the held call waits for a reviewer; then it expires and a repeat of the call is held anew. */
  readonly review_ttl_ms: number;
  /** The held decision's explained checks and the context's key names, for the review page. */
  readonly explained?: HoldExplained;
}

/** A review as stored and shown. */
export interface ReviewRecord extends CallKey {
  readonly effective_digest: string;
  readonly id: string;
  readonly state: ReviewState;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly reasons: readonly HoldReason[];
  readonly approval_ttl_ms: number;
  readonly created_at: number;
  readonly decided_at: number | null;
  readonly decided_by: string | null;
  /** The reviewer's reason for a denial, shown to the agent; null when none was given or not denied. */
  readonly decision_reason: string | null;
  /** When a pending review stops waiting for a reviewer, or when an approval stops being usable; null once denied. */
  readonly expires_at: number | null;
  readonly consumed_at: number | null;
  /** The held decision as explained at hold time; null for holds from before it was stored, and in `queue` pages. */
  readonly explained: HoldExplained | null;
}

/** A tool's pinned definition and, when the upstream now offers another, that one too. */
export interface ToolPin {
  readonly tool: string;
  readonly digest: string;
  readonly definition: unknown;
  readonly pinned_at: number;
  readonly pending_digest: string | null;
  readonly pending_definition: unknown;
  readonly changed_at: number | null;
}

/** What seeing a tool definition did: pinned it now, matched the pin, or differs from it. */
export interface PinCheck {
  readonly status: "pinned" | "matches" | "changed";
  readonly pinned_digest: string;
  /** True when this sighting recorded a new pending definition (so the caller audits it once). */
  readonly newly_changed: boolean;
}

/** The review queue and tool pins, over one store. Every mutation is one transaction. */
export interface ReviewStore {
  readonly kind: "sqlite" | "postgres";
  /**
   * The store's keyed digest of a value (HMAC-SHA-256 under the store's own secret, adr/0071): the
   * `arguments_digest` and `context_digest` of every call key and audit event of this store.
   */
  readonly digest: (value: unknown) => string;
  /**
   * Queue a held call; an identical pending call (same key) is returned instead of a duplicate. A
   * pending review of the same key that has expired is marked so and a new one is queued.
   */
  hold(input: NewHold, now: number): Promise<{ readonly review: ReviewRecord; readonly created: boolean }>;
  /** Atomically use one live approval of exactly this call; null when there is none. */
  consume(key: CallKey, now: number): Promise<ReviewRecord | null>;
  /** A review by id, or null. */
  get(id: string, now: number): Promise<ReviewRecord | null>;
  /** The most recent review (by when it was held) of exactly this call, or null (adr/0120). */
  latest(key: CallKey, now: number): Promise<ReviewRecord | null>;
  /**
   * Resolve once review `id` is no longer pending (decided here or by another process, or expired
   * unreviewed), or to the still-pending review after `timeoutMs`; an abort of `signal` rejects at
   * once and leaves nothing scheduled (src/review/wait.ts, adr/0121).
   */
  waitForDecision(id: string, options: WaitOptions): Promise<ReviewRecord>;
  /**
   * Reviews, oldest first (by `created_at`, then `id`), optionally of one state (as `state` reads at
   * `now`), optionally one page: at most `limit`, after the review with id `after`.
   */
  list(now: number, state?: ReviewState, page?: ListPage): Promise<ReviewRecord[]>;
  /** How many reviews `list(now, state)` would return, counted in the store without loading them. */
  count(now: number, state?: ReviewState): Promise<number>;
  /**
   * One page of reviews, oldest first, filtered in the store (not loaded and filtered), with how many
   * match in all; the records' `explained` is null (the page does not show it).
   */
  queue(now: number, query: QueueQuery): Promise<{ readonly reviews: ReviewRecord[]; readonly total: number }>;
  /**
   * A cheap summary of the queue and pins that changes whenever a review is held, decided or used, or
   * a tool definition changes or is approved: the review page polls it and pushes an update when it moves.
   */
  stamp(): Promise<string>;
  /** Approve a pending, unexpired review; the approval expires after `ttl_ms` (default: the review's own TTL). */
  approve(id: string, by: string, now: number, ttlMs?: number): Promise<ReviewRecord>;
  /** Deny a pending (or approved, unused) review that has not expired, with an optional reason for the agent. */
  deny(id: string, by: string, now: number, reason?: string, options?: DenyOptions): Promise<ReviewRecord>;
  /** Record a sighting of a tool definition (trust on first use) and compare it with the pin. */
  seeTool(tool: string, digest: string, definition: unknown, now: number): Promise<PinCheck>;
  /** The digest calls to `tool` must match, or null when the tool was never seen. */
  pinnedDigest(tool: string): Promise<string | null>;
  /** Every pin, by tool name. */
  tools(): Promise<ToolPin[]>;
  /**
   * Accept a tool's pending definition as its new pin, only if it is still the one with `digest`
   * (the digest the reviewer saw; the full `sha256:…`, never a prefix).
   */
  approveTool(tool: string, digest: string, now: number): Promise<ToolPin>;
  /** Release the database handle or pool. */
  close(): Promise<void>;
}

/** How `ReviewStore.waitForDecision` waits. */
export interface WaitOptions {
  /** Stop waiting when this aborts: the wait rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Wait at most this long (milliseconds, a positive whole number), then resolve to the still-pending review. */
  readonly timeoutMs: number;
  /** How often to read the store (default 500 ms, within 10 ms … 5 s; src/review/wait.ts). */
  readonly intervalMs?: number;
  /** The clock a review's expiry is judged by (default the wall clock; the gateway passes its own). */
  readonly clock?: () => number;
}
