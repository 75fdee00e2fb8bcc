/**
 * Source kinds and where their adapters live. Adapters load on first use, so importing the
 * package root never loads a database driver or the MCP SDK.
 * @module
 */
import type { SourceConfig } from "../checks/source-config.js";
import type { Source, SourceFactory, SourceKindName } from "../checks/source.js";

export type { SourceFactory, SourceInit } from "../checks/source.js";

/** Every source kind of specs/source-binding.md and its lazily loaded adapter. */
export const SOURCE_KINDS: { readonly [K in SourceKindName]: () => Promise<SourceFactory<K>> } = {
  postgres: async () => (await import("./postgres.js")).createPostgresSource,
  mysql: async () => (await import("./mysql.js")).createMysqlSource,
  http: async () => (await import("./http.js")).createHttpSource,
  mcp: async () => (await import("./mcp.js")).createMcpSource,
  sqlite: async () => (await import("./sqlite.js")).openSqlite,
};

/** Open the source `name` with the adapter of its kind, given its validated policy block. */
export async function openAdapter(name: string, config: SourceConfig, baseDir: string): Promise<Source> {
  switch (config.kind) {
    case "sqlite":
      return (await SOURCE_KINDS.sqlite())({ name, config, baseDir });
    case "postgres":
      return (await SOURCE_KINDS.postgres())({ name, config, baseDir });
    case "mysql":
      return (await SOURCE_KINDS.mysql())({ name, config, baseDir });
    case "http":
      return (await SOURCE_KINDS.http())({ name, config, baseDir });
    case "mcp":
      return (await SOURCE_KINDS.mcp())({ name, config, baseDir });
  }
}
