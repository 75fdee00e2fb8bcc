/**
 * Small pieces the adapters share: result rows and columns, JSON answers, a timeout error, racing
 * a request against the engine's AbortSignal, and watching pooled sessions.
 * @module
 */
import { SourceError } from "../checks/source.js";
import { scanJson } from "../platform/json.js";
import { isScalar, type Row, type Scalar } from "../core/index.js";
import { isObject } from "../platform/objects.js";

/** Rows one SQL request may return before it is refused as a malformed answer (adr/0005). */
export const MAX_ROWS = 10_000;

/**
 * A result's column names, each once; a name given twice (`SELECT a, b AS a`, `SELECT *` over a
 * join) is `column_ambiguous`, since a row keyed by name could hold only one of the two values.
 */
export function uniqueColumns(source: string, columns: readonly string[]): readonly string[] {
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c))
      throw new SourceError(
        "column_ambiguous",
        `source \`${source}\`: the result has two columns named \`${c}\`; give each its own name with \`AS\``,
      );
    seen.add(c);
  }
  return columns;
}

/** What a value that is not a scalar is, for an error message (never the value itself). */
function nonScalarKind(v: unknown): string {
  if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return "binary data";
  if (Array.isArray(v)) return "a list";
  return "a structured value";
}

/**
 * SQL rows keyed by column from positional cells. Every cell must be a scalar: binary data (a
 * BLOB, bytea, BINARY, BIT), a list or a structured value (json, a geometric or composite type)
 * is `column_type_unsupported` rather than a stand-in such as its base64 text (adr/0060).
 * `convert` adapts a scalar cell first (a driver's text for a big integer, say). More than
 * `MAX_ROWS` rows is `source_malformed_response`.
 */
export function scalarRows(
  source: string,
  columns: readonly string[],
  cells: readonly (readonly unknown[])[],
  convert: (v: unknown, column: number) => unknown = (v) => v,
): Row[] {
  if (cells.length > MAX_ROWS)
    throw new SourceError("source_malformed_response", `source \`${source}\`: more than ${MAX_ROWS} rows`);
  uniqueColumns(source, columns);
  return cells.map((r) => {
    const row: Record<string, Scalar> = {};
    for (let i = 0; i < columns.length; i++) {
      const v = convert(r[i], i);
      if (!isScalar(v))
        throw new SourceError(
          "column_type_unsupported",
          `source \`${source}\`: column \`${columns[i]}\` holds ${nonScalarKind(v)}, which cannot be compared; convert it in the query if that is meant`,
        );
      row[columns[i]!] = v;
    }
    return row;
  });
}

/**
 * Parse a JSON answer (an HTTP body, an MCP text content). A key given twice in one object is
 * `column_ambiguous`: `JSON.parse` keeps the last value silently, another reader the first. A
 * number `JSON.parse` would round (`9007199254740993`) is `source_malformed_response`: compared
 * rounded, it could match a neighbour. Messages do not name the key or the value, which are data.
 */
export function parseJsonAnswer(text: string, what: string, notJson: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SourceError("source_malformed_response", `${what}: ${notJson}`);
  }
  const problem = typeof body === "object" || typeof body === "number" ? scanJson(text) : null;
  if (problem?.code === "duplicate_key")
    throw new SourceError("column_ambiguous", `${what}: the response names one key twice in an object`);
  if (problem !== null) {
    throw new SourceError(
      "source_malformed_response",
      `${what}: a number in the response is not exact as a double; answer it as a string`,
    );
  }
  return body;
}

/** The error every adapter gives when the engine's signal fires first. */
export function timeoutError(source: string): SourceError {
  return new SourceError("source_timeout", `source \`${source}\` did not answer within its timeout`);
}

/**
 * Run `work` but settle as soon as `signal` aborts, with `source_timeout`; `onAbort` releases
 * whatever the work holds. A late rejection of the abandoned work is swallowed.
 */
export async function abortable<T>(
  source: string,
  signal: AbortSignal,
  work: Promise<T>,
  onAbort: () => void,
): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    onAbort();
    throw timeoutError(source);
  }
  return await new Promise<T>((resolve, reject) => {
    const abort = (): void => {
      onAbort();
      reject(timeoutError(source));
    };
    signal.addEventListener("abort", abort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(e);
      },
    );
  });
}

const ENDED = new WeakSet<object>();

/**
 * Listen for `error` on a pooled database session from the moment the pool creates it. The server
 * may end a session at any time (a failover, a restart, an idle timeout, a DBA's kill); without a
 * listener the driver's `error` event takes the whole process down. The request that holds the
 * session learns of it through its own failing query; `sessionEnded` tells it that it was this.
 */
export function watchSession(session: { on(event: "error", listener: (err: unknown) => void): unknown }): void {
  session.on("error", () => ENDED.add(session));
}

/** Whether the server ended `session` (its driver emitted `error`). */
export function sessionEnded(session: object): boolean {
  return ENDED.has(session);
}

/** The error of a request whose session the server ended. */
export function sessionLost(source: string): SourceError {
  return new SourceError("source_unreachable", `source \`${source}\`: the server ended the session`);
}

/** What one pooled SQL request holds while it runs; its `work` keeps `conn` and `session` up to date. */
export interface HeldSession<C> {
  /** The connection, until the request gives it back to the pool. */
  conn: C | undefined;
  /** The session it ran on, kept after release to tell a session the server ended. */
  session: object | undefined;
  /** The engine's signal fired first. */
  aborted: boolean;
}

/**
 * A SQL driver's connection pool as a Source holds it: ended once, on the Source's `close`, and no
 * request taken after that.
 */
export class SessionPool<P extends { end(): Promise<void> }> {
  #closed = false;

  constructor(
    private readonly source: string,
    /** The driver's pool. */
    readonly pool: P,
  ) {}

  /**
   * What a new request holds: its session (kept after release, to tell a session the server ended)
   * and whether the engine aborted it. `source_unreachable` once the pool is ended.
   */
  hold<C>(): HeldSession<C> {
    if (this.#closed) throw new SourceError("source_unreachable", `source \`${this.source}\` is closed`);
    return { conn: undefined, session: undefined, aborted: false };
  }

  /** End the pool. Idempotent. */
  async end(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}

/**
 * Settle a pooled SQL request under the engine's signal (adr/0063): an abort discards the held
 * connection, which cancels the statement server-side; on a failure a connection still held is
 * discarded, a session the server ended is `source_unreachable`, and anything else is `mapError`'s.
 */
export async function runHeld<C, T>(
  source: string,
  signal: AbortSignal,
  held: HeldSession<C>,
  work: Promise<T>,
  discard: (conn: C) => void,
  mapError: (source: string, err: unknown) => SourceError,
): Promise<T> {
  try {
    return await abortable(source, signal, work, () => {
      held.aborted = true;
      if (held.conn !== undefined) discard(held.conn);
      held.conn = undefined;
    });
  } catch (err) {
    if (held.conn !== undefined) {
      discard(held.conn);
      held.conn = undefined;
    }
    if (!held.aborted && held.session !== undefined && sessionEnded(held.session)) throw sessionLost(source);
    throw mapError(source, err);
  }
}

/** The bound value of each positional slot; the engine passes every name in `parameters`. */
export function positional(order: readonly string[], params: Readonly<Record<string, Scalar>>): Scalar[] {
  return order.map((name) => {
    if (!Object.hasOwn(params, name))
      throw new SourceError("source_invalid_query", `binding \`${name}\` was not supplied`);
    return params[name]!;
  });
}

/** Network error codes that mean the server could not be reached at all. */
export const UNREACHABLE_ERRNO: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "EPIPE",
  "ENOENT",
  "EACCES",
]);

/** The errno-style `code` of an error or of its cause, if any. */
export function errnoOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      e = errors[0];
      continue;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Where the rows are in a JSON body: a dot path of object keys (and array indexes). */
export function rowsAt(body: unknown, path: string | undefined, what: string): Row[] {
  let at: unknown = body;
  if (path !== undefined) {
    for (const key of path.split(".")) {
      if (at !== null && typeof at === "object" && Object.hasOwn(at, key)) at = (at as Record<string, unknown>)[key];
      else throw new SourceError("source_malformed_response", `${what}: no \`${path}\` in the response`);
    }
  }
  const isRow = (v: unknown): v is Row => isObject(v);
  if (Array.isArray(at)) {
    if (!at.every(isRow)) throw new SourceError("source_malformed_response", `${what}: the rows are not all objects`);
    return at;
  }
  if (isRow(at)) return [at];
  throw new SourceError(
    "source_malformed_response",
    `${what}: the response holds neither an object nor a list of objects`,
  );
}
