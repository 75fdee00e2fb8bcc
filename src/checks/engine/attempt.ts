/**
 * One check against its Source, retried as its policy says: exactly `retry.attempts + 1` requests
 * at most, none when a binding is missing or refused, and never again after a Source answered.
 * @module
 */
import type { Bindings } from "../../core/index.js";
import type { PreparedRequest, Source } from "../source.js";
import type { InvalidArguments } from "./call-bindings.js";
import type { CompiledCheck } from "./compile.js";
import { type Attempted, errorOf, evaluate, failed, invalidBinding, missingBinding, parametersOf } from "./evaluate.js";
import type { SourcePool } from "./source-pool.js";
import { type AttemptSpan, attemptSpan, type TracedDecision } from "./telemetry.js";

/** Run `cc` with bindings `b` through `pool`, retrying errors; the last result. */
export async function attempt(
  cc: CompiledCheck,
  b: Bindings,
  invalid: InvalidArguments,
  pool: SourcePool,
  contextNames: ReadonlySet<string>,
  sourceKind: (source: string) => string,
  traced: TracedDecision | null = null,
): Promise<Attempted> {
  const { policy: check } = cc;
  const max = check.retry.attempts + 1;
  let last: Attempted = { status: "error", attempts: 0, rows: null, conditions: [] };
  let requests = 0;
  // every way out of one iteration ends its span (when a host registered an SDK) with its result
  const ended = (span: AttemptSpan | null, a: Attempted): Attempted => {
    span?.end({ status: a.status, rows: a.rows, error: a.error?.code });
    return a;
  };
  for (let i = 0; i < max; i++) {
    const span =
      traced === null ? null : attemptSpan(traced, check, cc.argument, cc.index, i + 1, sourceKind(check.source));
    let src: Source;
    let request: PreparedRequest;
    try {
      src = pool.openedSource(check.source) ?? (await pool.open(check.source));
      if (cc.prepared === undefined || cc.prepared.source !== src) {
        cc.prepared = { source: src, request: src.prepare(check) };
      }
      request = cc.prepared.request;
    } catch (err) {
      requests++;
      const e = errorOf(err, sourceKind(check.source));
      last = ended(span, failed(requests, e.code, e.message));
      continue;
    }
    const bad = invalidBinding(cc, request.parameters, invalid);
    if (bad !== null) return ended(span, failed(requests, "argument_invalid", bad));
    const missing = missingBinding(cc, request.parameters, b, contextNames);
    if (missing !== null) return ended(span, failed(requests, "binding_missing", missing));
    const params = parametersOf(request.parameters, b);
    requests++;
    try {
      // a synchronous source cannot be interrupted: no signal, no timer (adr/0005)
      const result =
        request.runSync !== undefined ? request.runSync(params) : await pool.run(request, params, src.timeoutMs);
      last = evaluate(cc, result, b);
    } catch (err) {
      const e = errorOf(err, src.kind);
      last = ended(span, failed(requests, e.code, e.message));
      continue;
    }
    last.attempts = requests;
    ended(span, last);
    if (last.status !== "error") return last;
  }
  return last;
}
