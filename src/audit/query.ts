/**
 * Which audit events a reader asks for, shared by the SQLite and Postgres logs (this file loads no
 * driver, so the Postgres log does not load SQLite's).
 * @module
 */
import { TesseraError } from "../platform/errors.js";

/** Which events to read: of one type, at most `limit`, after the event with id `after` (in log order). */
export interface AuditQuery {
  readonly type?: string;
  readonly limit?: number;
  readonly after?: string;
}

/** The error of a query whose `after` names no event. */
export function unknownEvent(id: string): TesseraError {
  return new TesseraError("audit_event_not_found", `no audit event \`${id}\` to export after`);
}
