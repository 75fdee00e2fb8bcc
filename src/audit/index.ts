/**
 * The versioned audit log (adr/0002): SQLite in WAL mode, one row per event.
 * @module
 */
export { DECISION_EVENT, decisionPayload, type DecisionPayloadOptions } from "./decision.js";
export { type AuditEvent, type AuditLog, type AuditOptions, openAuditLog, readAuditEvents } from "./log.js";
