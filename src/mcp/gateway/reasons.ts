/**
 * The gateway's view of a decision's reasons; shared with the framework adapters, so it lives in
 * src/review/reasons.ts.
 * @module
 */
export * from "../../review/reasons.js";
