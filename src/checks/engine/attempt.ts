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

/** Run `cc` with bindings `b` through `pool`, retrying errors; the last result. */
export async function attempt(
  cc: CompiledCheck,
  b: Bindings,
  invalid: InvalidArguments,
  pool: SourcePool,
  contextNames: ReadonlySet<string>,
  sourceKind: (source: string) => string,
): Promise<Attempted> {
  const { policy: check } = cc;
  const max = check.retry.attempts + 1;
  let last: Attempted = { status: "error", attempts: 0, rows: null, conditions: [] };
  let requests = 0;
  for (let i = 0; i < max; i++) {
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
      last = failed(requests, e.code, e.message);
      continue;
    }
    const bad = invalidBinding(cc, request.parameters, invalid);
    if (bad !== null) return failed(requests, "argument_invalid", bad);
    const missing = missingBinding(cc, request.parameters, b, contextNames);
    if (missing !== null) return failed(requests, "binding_missing", missing);
    const params = parametersOf(request.parameters, b);
    requests++;
    try {
      // a synchronous source cannot be interrupted: no signal, no timer (adr/0005)
      const result =
        request.runSync !== undefined ? request.runSync(params) : await pool.run(request, params, src.timeoutMs);
      last = evaluate(cc, result, b);
    } catch (err) {
      const e = errorOf(err, src.kind);
      last = failed(requests, e.code, e.message);
      continue;
    }
    last.attempts = requests;
    if (last.status !== "error") return last;
  }
  return last;
}
