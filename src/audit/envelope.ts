/**
 * What both audit stores (SQLite, Postgres) require of an event before they write it: a versioned
 * type and a payload that leaves the envelope's own keys alone.
 * @module
 */
import { TesseraError } from "../platform/errors.js";

const TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.v[0-9]+$/;
const RESERVED = new Set(["type", "id", "at"]);

/** Throw `audit_type_invalid` or `audit_payload_invalid` for an event no store may hold. */
export function checkEvent(type: string, payload: Readonly<Record<string, unknown>>): void {
  if (!TYPE.test(type))
    throw new TesseraError("audit_type_invalid", `event type \`${type}\` is not of the form \`tessera.<what>.v<n>\``);
  for (const k of Object.keys(payload)) {
    if (RESERVED.has(k))
      throw new TesseraError("audit_payload_invalid", `payload key \`${k}\` is reserved for the envelope`);
  }
}
