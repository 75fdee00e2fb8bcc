/**
 * The Source interface the check engine needs. Adapters in src/sources/ implement it; the engine
 * never imports them (adr/0002). specs/policy.md.
 * @module
 */
import type { Row, Scalar } from "../core/index.js";
import { EXIT, type SourceErrorCode } from "../platform/error-codes.js";
import { TesseraError } from "../platform/errors.js";
import type { SourceConfigInput } from "./source-config.js";
import type { SourceKindName } from "./source-kinds.js";

export type { SourceErrorCode } from "../platform/error-codes.js";
export { DEFAULT_TIMEOUT_MS, SOURCE_KIND_NAMES, type SourceKindName } from "./source-kinds.js";

/**
 * A failed Source request: a `TesseraError` with its Source code that ends a command with exit 4
 * (unavailable), should one reach the CLI. Messages never contain secrets or bound values.
 */
export class SourceError extends TesseraError {
  declare readonly code: SourceErrorCode;

  constructor(code: SourceErrorCode, message: string, options: { cause?: unknown; path?: string } = {}) {
    super(code, message, options.path, { exitCode: EXIT.unavailable, cause: options.cause });
    this.name = "SourceError";
  }
}

/**
 * The request of a SQL source (sqlite, postgres, mysql): one read-only statement with the
 * adapter's placeholders.
 */
export interface SqlRequest {
  readonly query: string;
  /**
   * The binding names the query reads, when the policy loader has already checked it for the
   * source's dialect; an adapter handed a request without them checks the query itself.
   */
  readonly placeholders?: readonly string[];
  readonly path?: never;
  readonly tool?: never;
  readonly arguments?: never;
}

/** The request of an HTTP source: a path with `{name}` placeholders, appended to its `base_url`. */
export interface HttpRequest {
  readonly path: string;
  readonly query?: never;
  readonly tool?: never;
  readonly arguments?: never;
}

/** The request of an MCP source: the tool to call, and its arguments with `"{name}"` placeholders. */
export interface McpRequest {
  readonly tool: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly query?: never;
  readonly path?: never;
}

/** The request part of a policy check: one shape per kind of source, told apart by its key. */
export type CheckRequest = SqlRequest | HttpRequest | McpRequest;

/** The request each source kind takes. */
export interface RequestOfKind {
  readonly sqlite: SqlRequest;
  readonly postgres: SqlRequest;
  readonly mysql: SqlRequest;
  readonly http: HttpRequest;
  readonly mcp: McpRequest;
}

/** What a prepared request returns: rows, and the column names when the Source knows them. */
export interface SourceResult {
  readonly rows: readonly Row[];
  readonly columns?: readonly string[];
}

/** A request compiled once per check and run once per decision (and per retry). */
export interface PreparedRequest {
  /** The binding names the request reads; a missing one is `binding_missing`, not retried. */
  readonly parameters: readonly string[];
  /**
   * Run with the bound values; must honour `signal` (the source's `timeout_ms`). The signal is this
   * request's only until the returned promise settles: the engine reuses a signal that did not
   * abort and has no listener left, so remove listeners and do not keep the signal past that point.
   */
  run(params: Readonly<Record<string, Scalar>>, signal: AbortSignal): Promise<SourceResult>;
  /**
   * Optional, for in-process sources that answer synchronously and cannot be interrupted (SQLite):
   * the engine calls this instead of `run`, with no signal or timer; the adapter enforces its own
   * timeout after the fact (adr/0005). Network adapters leave it out.
   */
  runSync?(params: Readonly<Record<string, Scalar>>): SourceResult;
}

/**
 * What a Source adapter's factory receives: the source's name, its policy block and the folder
 * relative paths resolve against. The one init type of every adapter; the registry and the gate
 * pass the block the policy schema validated, defaults applied, and an adapter settles a block
 * given by hand with that same schema (src/sources/config.ts).
 */
export interface SourceInit<K extends SourceKindName = SourceKindName> {
  readonly name: string;
  readonly config: SourceConfigInput<K>;
  /** Folder of the policy file; relative paths in `config` resolve against it. */
  readonly baseDir: string;
  /**
   * True when `config` is a loaded policy's block (validated, defaults applied): the adapter uses it
   * as it is, so a warm start never loads the schema. Absent: the block is checked against it.
   */
  readonly resolved?: boolean;
}

/**
 * What a Source says about a request it compiled without running it (`tessera policy lint
 * --connect`, adr/0127): the columns it will return, when it can know them, and what it checked.
 */
export interface RequestDescription {
  /** The result's column names, or null when the Source cannot know them without running the request. */
  readonly columns: readonly string[] | null;
  /** What was checked, in a few words: `prepared read-only on the server`, `tool listed by the server`. */
  readonly checked: string;
}

/** Builds one Source of kind `K` from its policy block. */
export type SourceFactory<K extends SourceKindName = SourceKindName> = (
  init: SourceInit<K>,
) => Promise<Source<RequestOfKind[K]>>;

/** One configured Source (a database, an HTTP API, an MCP server), taking requests of shape `R`. */
export interface Source<R extends CheckRequest = CheckRequest> {
  readonly kind: string;
  /** Per-request timeout in milliseconds (default 5000). */
  readonly timeoutMs: number;
  /** Compile a check's request; throws `SourceError("source_invalid_query")` when it cannot be. */
  prepare(request: R): PreparedRequest;
  /**
   * Optional: compile `request` against the live Source without running it, for `tessera policy
   * lint --connect`. Throws a `SourceError` when the Source refuses it (`source_invalid_query`) or
   * cannot be reached. A Source without it is reported as not checked.
   */
  describe?(request: R): Promise<RequestDescription>;
  /** Release connections, processes and handles. Idempotent. */
  close(): Promise<void>;
}
