/**
 * `tessera/mcp`: Tessera as an MCP server. The only part of the package that loads
 * `@modelcontextprotocol/sdk`; the package root never imports it (DESIGN.md §1).
 * @module
 */
export { CONTEXT_ENV, EMPTY_CONTEXT, loadTrustedContext, type TrustedContext, trustedContext } from "./context.js";
export { ERROR_META_KEY, type McpToolErrorCode, type ToolErrorInfo } from "./errors.js";
export { HTTP_HOST, HTTP_PATH, type HttpHandle, MAX_BODY_BYTES, MIN_TOKEN_LENGTH, type Refusal, refuse, serveHttp, TOKEN_ENV, tokenFrom } from "./http.js";
export { LIMITS } from "./limits.js";
export { buildServer, createTesseraServer, openServices, type TesseraServerConfig } from "./server.js";
export { serveStdio } from "./stdio.js";
export { CONTEXT_META_KEY, type Services, type ToolDef, toolDefs, type ToolOutput } from "./tools.js";
