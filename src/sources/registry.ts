/**
 * Source kinds and where their adapters live. Adapters load on first use, so importing the
 * package root never loads a database driver or the MCP SDK.
 * @module
 */
import type { SourceFactory } from "../checks/source.js";

export type { SourceFactory, SourceInit } from "../checks/source.js";

/** Every source kind of specs/source-binding.md and its lazily loaded adapter. */
export const SOURCE_KINDS: Readonly<Record<string, () => Promise<SourceFactory>>> = {
  postgres: async () => (await import("./postgres.js")).createPostgresSource,
  mysql: async () => (await import("./mysql.js")).createMysqlSource,
  http: async () => (await import("./http.js")).createHttpSource,
  mcp: async () => (await import("./mcp.js")).createMcpSource,
  sqlite: async () => (await import("./sqlite.js")).openSqlite,
};
