/**
 * Recorded Sources: replay `{request, rows | error}` records from a JSON file, so `tessera test`
 * reproduces HTTP and MCP (and, if wanted, SQL) checks offline. A check's request is bound with
 * the same code the live adapter uses (`compileHttpPath`, `compileMcpArguments`,
 * `translatePlaceholders`), then looked up by its canonical JSON; an unrecorded request fails
 * with `source_unreachable`, never with rows.
 *
 * File format (`*.recorded.json`):
 * ```json
 * { "version": 1, "kind": "http", "records": [
 *   { "request": { "path": "/orders/1001" }, "rows": [{ "customer_id": "c-1" }] },
 *   { "request": { "path": "/orders/1002" }, "error": { "code": "source_timeout", "message": "recorded timeout" } } ] }
 * ```
 * Requests: http `{path}` (bound path and query, relative to `base_url`); mcp `{tool, arguments}`
 * (bound arguments); postgres and mysql `{query, params}` (the policy's query text and the bound
 * values by name).
 * @module
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import type { OpenSource } from "../checks/engine.js";
import {
  type CheckRequest,
  DEFAULT_TIMEOUT_MS,
  type PreparedRequest,
  type Source,
  SourceError,
  type SourceErrorCode,
  type SourceResult,
} from "../checks/source.js";
import { canonicalJson, type Row, type Scalar } from "../core/index.js";
import { findDuplicateKey } from "../platform/json.js";
import { TesseraError } from "../platform/errors.js";
import { compileHttpPath } from "./http.js";
import { compileMcpArguments } from "./mcp-arguments.js";
import { translatePlaceholders } from "./sql-placeholders.js";

/**
 * A request no recording answers. To the engine it is `source_unreachable`, like any Source that
 * cannot answer; the case runner tells it from a recorded outage by its type.
 */
export class RecordingMiss extends SourceError {
  /** The recorded source's name. */
  readonly source: string;
  /** The request's bound values, by parameter name. */
  readonly values: Readonly<Record<string, unknown>>;

  constructor(source: string, parameters: readonly string[], params: Readonly<Record<string, unknown>>) {
    super("source_unreachable", `source \`${source}\`: no recorded response for this request`);
    this.name = "RecordingMiss";
    this.source = source;
    this.values = Object.fromEntries(parameters.map((p) => [p, params[p]]));
  }
}

/** Source kinds a recording can stand in for. */
export type RecordedKind = "http" | "mcp" | "postgres" | "mysql";

/** One recorded exchange: the bound request, then rows (and columns when known) or an error. */
export interface Recording {
  readonly request: Readonly<Record<string, unknown>>;
  readonly rows?: readonly Row[];
  readonly columns?: readonly string[];
  readonly error?: { readonly code: SourceErrorCode; readonly message: string };
}

/** A recording file: its version, the kind of source it replaces, and its records. */
export interface RecordingFile {
  readonly version: 1;
  readonly kind: RecordedKind;
  readonly records: readonly Recording[];
}

const ERROR_CODES = [
  "source_timeout",
  "source_auth_failed",
  "source_unreachable",
  "source_server_error",
  "source_invalid_query",
  "source_malformed_response",
  "source_tool_error",
  "column_ambiguous",
  "column_type_unsupported",
] as const;
const row = z.record(z.string(), z.unknown());
const recordingFileSchema = z.strictObject({
  version: z.literal(1),
  kind: z.enum(["http", "mcp", "postgres", "mysql"]),
  records: z.array(
    z
      .strictObject({
        request: z.record(z.string(), z.unknown()),
        rows: z.array(row).optional(),
        columns: z.array(z.string()).optional(),
        error: z.strictObject({ code: z.enum(ERROR_CODES), message: z.string() }).optional(),
      })
      .refine(
        (r) => (r.rows === undefined) !== (r.error === undefined),
        "a record needs exactly one of `rows` and `error`",
      ),
  ),
});

/** Compile a check's request as the live adapter would: its parameters and the bound request. */
function binder(
  kind: RecordedKind,
  request: CheckRequest,
): { parameters: readonly string[]; bind(p: Readonly<Record<string, Scalar>>): Record<string, unknown> } {
  if (kind === "http") {
    if (request.path === undefined) throw new SourceError("source_invalid_query", "an http check needs a `path`");
    const t = compileHttpPath(request.path);
    return { parameters: t.parameters, bind: (p) => ({ path: t.bind(p) }) };
  }
  if (kind === "mcp") {
    if (request.tool === undefined) throw new SourceError("source_invalid_query", "an mcp check needs a `tool`");
    const tool = request.tool;
    const t = compileMcpArguments(request.arguments ?? {});
    return { parameters: t.parameters, bind: (p) => ({ tool, arguments: t.bind(p) }) };
  }
  if (request.query === undefined) throw new SourceError("source_invalid_query", "a sql check needs a `query`");
  const query = request.query;
  const sql = translatePlaceholders(query, kind);
  return {
    parameters: sql.parameters,
    bind: (p) => ({ query, params: Object.fromEntries(sql.parameters.map((n) => [n, p[n]])) }),
  };
}

/** The lookup key of a bound request. */
export function recordKey(request: unknown): string {
  return canonicalJson(request);
}

/**
 * A Source that answers from `file.records`.
 * @example
 * createRecordedSource("refund-api", {
 *   version: 1,
 *   kind: "http",
 *   records: [{ request: { path: "/refunds?order_id=1001" }, rows: [] }],
 * });
 */
export function createRecordedSource(name: string, file: RecordingFile, timeoutMs = DEFAULT_TIMEOUT_MS): Source {
  const byKey = new Map<string, Recording>();
  for (const r of file.records) byKey.set(recordKey(r.request), r);
  return {
    kind: file.kind,
    timeoutMs,
    prepare(request: CheckRequest): PreparedRequest {
      const b = binder(file.kind, request);
      return {
        parameters: b.parameters,
        async run(params): Promise<SourceResult> {
          const r = byKey.get(recordKey(b.bind(params)));
          if (r === undefined) throw new RecordingMiss(name, b.parameters, params);
          if (r.error !== undefined) throw new SourceError(r.error.code, r.error.message);
          return r.columns === undefined ? { rows: r.rows ?? [] } : { rows: r.rows ?? [], columns: r.columns };
        },
      };
    },
    async close() {},
  };
}

/** Read and validate a recording file; errors carry the file and the JSON path. */
export async function loadRecording(file: string): Promise<RecordingFile> {
  let data: unknown;
  let text: string;
  try {
    text = await readFile(file, "utf8");
    data = JSON.parse(text);
  } catch (err) {
    const why =
      (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such recording file" : "cannot read the recording as json";
    throw new TesseraError("recording_invalid", `${why} \`${file}\``);
  }
  // a replayed row must be as unambiguous as a live one (adr/0060)
  const dup = findDuplicateKey(text);
  if (dup !== null)
    throw new TesseraError("recording_invalid", `duplicate key \`${dup.key}\` in \`${file}\``, dup.path);
  const parsed = recordingFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TesseraError(
      "recording_invalid",
      `${issue?.message ?? "invalid recording"} in \`${file}\``,
      issue?.path.map(String).join(".") || undefined,
    );
  }
  return parsed.data as RecordingFile;
}

/**
 * An `OpenSource` for `createGate(policy, { openSource })` that replays the named sources from
 * recording files (paths relative to `baseDir`) and opens every other source with `fallback`.
 */
export function recordedOpener(
  files: Readonly<Record<string, string>>,
  baseDir: string,
  fallback?: OpenSource,
): OpenSource {
  return async (name, config) => {
    const file = Object.hasOwn(files, name) ? files[name] : undefined;
    if (file === undefined) {
      if (fallback === undefined) throw new SourceError("source_unreachable", `source \`${name}\` has no recording`);
      return fallback(name, config);
    }
    const recording = await loadRecording(isAbsolute(file) ? file : resolve(baseDir, file));
    if (recording.kind !== config.kind)
      throw new TesseraError(
        "recording_invalid",
        `recording \`${file}\` is for a \`${recording.kind}\` source, not \`${config.kind}\``,
      );
    return createRecordedSource(name, recording, config.timeout_ms);
  };
}

/**
 * Wrap a live Source so every request and its answer is kept; `file()` returns them as a
 * recording. Used to make the fixtures `createRecordedSource` replays.
 */
export function recordingSource(inner: Source, kind: RecordedKind): { readonly source: Source; file(): RecordingFile } {
  const records = new Map<string, Recording>();
  const source: Source = {
    kind: inner.kind,
    timeoutMs: inner.timeoutMs,
    prepare(request) {
      const live = inner.prepare(request);
      const b = binder(kind, request);
      return {
        parameters: live.parameters,
        async run(params, signal) {
          const bound = b.bind(params);
          try {
            const result = await live.run(params, signal);
            records.set(
              recordKey(bound),
              result.columns === undefined
                ? { request: bound, rows: result.rows }
                : { request: bound, rows: result.rows, columns: result.columns },
            );
            return result;
          } catch (err) {
            if (err instanceof SourceError)
              records.set(recordKey(bound), { request: bound, error: { code: err.code, message: err.message } });
            throw err;
          }
        },
      };
    },
    close: () => inner.close(),
  };
  return {
    source,
    file: () => ({
      version: 1,
      kind,
      records: [...records.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r),
    }),
  };
}
