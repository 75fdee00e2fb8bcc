/**
 * `tessera-trust/review`: the review queue without the MCP SDK, for adapters that hold calls —
 * open the store `tessera review` reads, decide its reviews from code, and wait for a decision.
 * @module
 */
export { approveReview, denyReview } from "./actions.js";
export {
  DEFAULT_STORE,
  type GatewayStore as ReviewQueueStore,
  openGatewayStore as openReviewStore,
  resolveStore,
} from "./open.js";
export type { CallKey, HoldReason, ReviewRecord, ReviewState, ReviewStore } from "./types.js";
export { DEFAULT_POLL_INTERVAL_MS, waitForDecision, type WaitOptions } from "./wait.js";
