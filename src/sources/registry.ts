/**
 * Source kinds and where their adapters live. Adapters load on first use, so importing the
 * package root never loads a database driver or the MCP SDK.
 * @module
 */
import type { Source } from "../checks/source.js";

/** What an adapter factory receives: the source's name, its validated policy block, and where the policy lives. */
export interface SourceInit {
  readonly name: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** Folder of the policy file; relative paths in `config` resolve against it. */
  readonly baseDir: string;
}

/** Builds one Source from its policy block. */
export type SourceFactory = (init: SourceInit) => Promise<Source>;

/** Every source kind of DESIGN.md §5 and its lazily loaded adapter. */
export const SOURCE_KINDS: Readonly<Record<string, () => Promise<SourceFactory>>> = {
  postgres: async () => (await import("./postgres.js")).createPostgresSource,
  mysql: async () => (await import("./mysql.js")).createMysqlSource,
  http: async () => (await import("./http.js")).createHttpSource,
  mcp: async () => (await import("./mcp.js")).createMcpSource,
  sqlite: async () => (await import("./sqlite.js")).openSqlite,
};
