/**
 * The service's refusals: one closed set of codes, each with its HTTP status, answered as
 * `{"error": {"code", "message"}}` whose message is one line that names the offending field
 * (specs/serve.md). A refusal is never a decision: nothing is allowed by one.
 * @module
 */

/** Every `error.code` the service answers with, and its status. */
export const ERROR_STATUS = {
  json_invalid: 400,
  duplicate_key: 400,
  number_unsafe: 400,
  number_inexact: 400,
  body_invalid: 400,
  unknown_key: 400,
  input_too_large: 400,
  unauthorized: 401,
  context_key_forbidden: 403,
  route_not_found: 404,
  review_not_found: 404,
  unknown_tool: 404,
  method_not_allowed: 405,
  body_too_large: 413,
  content_type_unsupported: 415,
  workspace_missing: 422,
  overloaded: 503,
  deadline_exceeded: 503,
  shutting_down: 503,
  store_unavailable: 503,
} as const;

/** A code the service answers with. */
export type ServeErrorCode = keyof typeof ERROR_STATUS;

/** A request the service refuses: its code (and so its status) and a one-line message. */
export class HttpError extends Error {
  readonly code: ServeErrorCode;
  readonly status: number;
  /** Extra response headers (`allow`, `retry-after`, `www-authenticate`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ServeErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(oneLine(message));
    this.name = "HttpError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

/** A message as one line: a client's key or value may hold a line break. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, " ");
}

/** The body of a refusal. */
export function errorBody(err: HttpError): string {
  return `${JSON.stringify({ error: { code: err.code, message: err.message } })}\n`;
}
