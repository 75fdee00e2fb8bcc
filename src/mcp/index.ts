/**
 * `tessera-trust/mcp`: Tessera as an MCP server, and the MCP gateway with its review queue
 * (`createGateway`, `openGatewayStore`, `approveReview`). The only part of the package that loads
 * `@modelcontextprotocol/sdk`; the package root never imports it (specs/README.md).
 * @module
 */
export { consoleToStderr } from "./console.js";
export { CONTEXT_ENV, EMPTY_CONTEXT, type LoadedContext, loadTrustedContext, trustedContext } from "./context.js";
/**
 * @deprecated Renamed `LoadedContext`: the package root's `TrustedContext` is the context values
 * alone, and one name should not mean two things. This alias goes in the next minor version.
 */
export type { LoadedContext as TrustedContext } from "./context.js";
export { ERROR_META_KEY, type McpToolErrorCode, type ToolErrorInfo } from "./errors.js";
export {
  HTTP_HOST,
  HTTP_PATH,
  type HttpHandle,
  MAX_BODY_BYTES,
  MIN_TOKEN_LENGTH,
  type Refusal,
  refuse,
  serveHttp,
  TOKEN_ENV,
  tokenFrom,
} from "./http.js";
export { LIMITS } from "./limits.js";
export { buildServer, createTesseraServer, openServices, type TesseraServerConfig } from "./server.js";
export { serveStdio } from "./stdio.js";
export { CONTEXT_META_KEY, type Services, type ToolDef, toolDefs, type ToolOutput } from "./tools.js";
export {
  createGateway,
  DEFAULT_APPROVAL_TTL_MS,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  EVENT,
  type Gateway,
  type GatewayAction,
  type GatewayErrorCode,
  GATEWAY_META_KEY,
  type GatewayOptions,
  type GatewayVerdict,
} from "./gateway/gateway.js";
export type { AuditSink, CheckLike, Clock, Decide, DecisionLike, GatewayCall } from "./gateway/types.js";
export { UpstreamError, type UpstreamErrorCode, type UpstreamSpec } from "./gateway/upstream.js";
export { approveReview, approveTool, denyReview, type ReviewAudit } from "../review/actions.js";
export {
  DEFAULT_STORE,
  type EventLog,
  type GatewayStore,
  openGatewayStore,
  resolveStore,
  STORE_ENV,
} from "../review/open.js";
export type {
  CallKey,
  HoldKind,
  HoldReason,
  NewHold,
  PinCheck,
  ReviewRecord,
  ReviewState,
  ReviewStore,
  ToolPin,
} from "../review/types.js";
export { DEFAULT_REVIEW_TTL_MS } from "../review/types.js";
