/**
 * The Source interface the check engine needs. Adapters in src/sources/ implement it; the engine
 * never imports them (adr/0002). specs/policy.md.
 * @module
 */
import type { Row, Scalar } from "../core/index.js";
import { EXIT, type SourceErrorCode } from "../platform/error-codes.js";
import { TesseraError } from "../platform/errors.js";

export type { SourceErrorCode } from "../platform/error-codes.js";

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

/** The request part of a policy check, as written in the policy (one of these per adapter kind). */
export interface CheckRequest {
  /** SQL sources: one read-only statement with the adapter's placeholders. */
  readonly query?: string;
  /** HTTP sources: a path with `{name}` placeholders, appended to the source's `base_url`. */
  readonly path?: string;
  /** MCP sources: the tool to call. */
  readonly tool?: string;
  /** MCP sources: the tool's arguments, with `"{name}"` placeholders. */
  readonly arguments?: Readonly<Record<string, unknown>>;
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
 * What a Source adapter's factory receives: the source's name, its policy block (validated by the
 * policy schema, defaults applied) and the folder relative paths resolve against. The one init
 * type of every adapter; the registry and the gate pass it, adapters declare nothing of their own.
 */
export interface SourceInit {
  readonly name: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** Folder of the policy file; relative paths in `config` resolve against it. */
  readonly baseDir: string;
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

/** Builds one Source from its policy block. */
export type SourceFactory = (init: SourceInit) => Promise<Source>;

/** One configured Source (a database, an HTTP API, an MCP server). */
export interface Source {
  readonly kind: string;
  /** Per-request timeout in milliseconds (default 5000). */
  readonly timeoutMs: number;
  /** Compile a check's request; throws `SourceError("source_invalid_query")` when it cannot be. */
  prepare(request: CheckRequest): PreparedRequest;
  /**
   * Optional: compile `request` against the live Source without running it, for `tessera policy
   * lint --connect`. Throws a `SourceError` when the Source refuses it (`source_invalid_query`) or
   * cannot be reached. A Source without it is reported as not checked.
   */
  describe?(request: CheckRequest): Promise<RequestDescription>;
  /** Release connections, processes and handles. Idempotent. */
  close(): Promise<void>;
}

/** Default per-request timeout of every source, in milliseconds (here, not in policy.ts, so the engine loads no zod). */
export const DEFAULT_TIMEOUT_MS = 5000;
