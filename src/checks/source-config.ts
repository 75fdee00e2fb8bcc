/**
 * The schema of a policy's source blocks (specs/policy.md): one strict zod object per kind, with
 * every default a source has (`timeout_ms`, `pool_size`, `not_found`, `max_bytes`) applied here and
 * nowhere else. The policy schema (policy.ts) validates `sources:` with it; an adapter handed a
 * block that did not come through the loader settles it with the same schema.
 * @module
 */
import { z } from "zod";
import { DEFAULT_TIMEOUT_MS, type SourceKindName } from "./source-kinds.js";

const timeoutMs = z
  .number()
  .int()
  .positive()
  .max(600_000)
  .default(DEFAULT_TIMEOUT_MS)
  .describe("per-request timeout in milliseconds");
const poolSize = z.number().int().positive().max(256).default(4);
const stringMap = z.record(z.string(), z.string());
/** A non-empty string. */
export const nonEmpty = z.string().min(1);

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}, "expected an http or https url");

const sqliteSource = z
  .strictObject({
    kind: z.literal("sqlite"),
    path: nonEmpty.describe("database file, opened read-only; relative to the policy file"),
    timeout_ms: timeoutMs,
  })
  .describe("a SQLite database; queries bind `:name`");
const postgresSource = z
  .strictObject({
    kind: z.literal("postgres"),
    url: nonEmpty.describe("connection url; use ${VAR} for secrets"),
    timeout_ms: timeoutMs,
    pool_size: poolSize,
  })
  .describe("a Postgres database; queries bind `%(name)s` in read-only transactions");
const mysqlSource = z
  .strictObject({
    kind: z.literal("mysql"),
    url: nonEmpty.describe("connection url; use ${VAR} for secrets"),
    timeout_ms: timeoutMs,
    pool_size: poolSize,
  })
  .describe("a MySQL or MariaDB database; queries bind `%(name)s` in read-only transactions");
const httpSource = z.strictObject({
  kind: z.literal("http"),
  base_url: httpUrl,
  headers: stringMap.optional(),
  rows: nonEmpty.optional().describe("dot path to the rows in the JSON body (default: the body itself)"),
  not_found: z.enum(["empty", "error"]).default("empty"),
  max_bytes: z.number().int().positive().default(1_048_576),
  timeout_ms: timeoutMs,
});
const mcpSource = z
  .strictObject({
    kind: z.literal("mcp"),
    command: nonEmpty.optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: nonEmpty.optional(),
    url: httpUrl.optional(),
    headers: stringMap.optional(),
    timeout_ms: timeoutMs,
  })
  .superRefine((s, ctx) => {
    if ((s.command === undefined) === (s.url === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "an mcp source needs exactly one of `command` (stdio) and `url` (streamable http)",
      });
    }
    if (s.command === undefined && (s.args !== undefined || s.env !== undefined || s.cwd !== undefined)) {
      ctx.addIssue({ code: "custom", message: "`args`, `env` and `cwd` need `command`" });
    }
    if (s.url === undefined && s.headers !== undefined)
      ctx.addIssue({ code: "custom", message: "`headers` need `url`" });
  });

/** One source block; the kind selects the shape. */
export const sourceSchema = z.discriminatedUnion("kind", [
  sqliteSource,
  postgresSource,
  mysqlSource,
  httpSource,
  mcpSource,
]);

/** Each kind's source block schema, for an adapter handed a block that did not come through the loader. */
export const SOURCE_SCHEMAS = {
  sqlite: sqliteSource,
  postgres: postgresSource,
  mysql: mysqlSource,
  http: httpSource,
  mcp: mcpSource,
} as const satisfies Readonly<Record<SourceKindName, z.ZodType>>;

/** A validated SQLite source block (path resolved against the policy folder). */
export type SqliteSourceConfig = z.output<typeof sqliteSource>;
/** A validated Postgres source block. */
export type PostgresSourceConfig = z.output<typeof postgresSource>;
/** A validated MySQL source block. */
export type MysqlSourceConfig = z.output<typeof mysqlSource>;
/** A validated HTTP source block. */
export type HttpSourceConfig = z.output<typeof httpSource>;
/** A validated MCP source block (cwd resolved against the policy folder). */
export type McpSourceConfig = z.output<typeof mcpSource>;
/** Any validated source block, defaults applied. */
export type SourceConfig = z.output<typeof sourceSchema>;
/** The validated block of a source of kind `K`, defaults applied. */
export type SourceConfigOf<K extends SourceKindName> = z.output<(typeof SOURCE_SCHEMAS)[K]>;
/**
 * A source block of kind `K` as a caller may write it: defaults and `kind` may be left out. What a
 * Source adapter accepts; it settles the block with the kind's schema above, the one place defaults live.
 */
export type SourceConfigInput<K extends SourceKindName> = { [P in K]: SourceInputs[P] }[K];
type SourceInputs = { [P in SourceKindName]: Omit<z.input<(typeof SOURCE_SCHEMAS)[P]>, "kind"> & { kind?: P } };
