/**
 * `tessera-trust/review`: the review queue without the MCP SDK, for adapters that hold calls —
 * open the store `tessera review` reads and decide its reviews from code.
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
