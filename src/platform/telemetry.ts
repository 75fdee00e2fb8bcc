/**
 * OpenTelemetry through `@opentelemetry/api` only (adr/0129): spans and metrics for decisions,
 * check attempts and gateway forwards, recorded only when the host has registered an SDK. The API
 * keeps its registrations on `globalThis` under `Symbol.for("opentelemetry.js.api.1")`; while that
 * is absent nothing is loaded and every hook here returns null at the cost of one property read.
 * Attribute names follow the semantic conventions where one exists (`gen_ai.tool.name`,
 * `db.system.name`, `error.type`, `mcp.method.name`); no attribute ever holds an argument or row
 * value, only names, codes and keyed digests.
 * @module
 */
import type * as Api from "@opentelemetry/api";

/** Where every copy of `@opentelemetry/api` 1.x keeps the registered providers. */
const API_KEY = Symbol.for("opentelemetry.js.api.1");
/** The instrumentation scope of every span and instrument. */
export const SCOPE = "tessera-trust";

/** The spans and instruments of one registered SDK. */
export interface Telemetry {
  readonly api: typeof Api;
  readonly tracer: Api.Tracer;
  /** `tessera.decisions`: decisions by `tessera.decision` and `tessera.enforced`. */
  readonly decisions: Api.Counter;
  /** `tessera.decision.duration` (s): how long a decision took, by `tessera.decision`. */
  readonly decisionDuration: Api.Histogram;
  /** `tessera.source.errors`: failed Source requests by source, `db.system.name` and `error.type`. */
  readonly sourceErrors: Api.Counter;
  /** `tessera.check.duration` (s): one Source request, by source and `db.system.name`. */
  readonly checkDuration: Api.Histogram;
  /** `tessera.gateway.forwards`: calls the gateway forwarded, by outcome. */
  readonly forwards: Api.Counter;
}

let api: typeof Api | undefined;
let loading: Promise<typeof Api> | undefined;
let state: { provider: Api.MeterProvider; telemetry: Telemetry } | undefined;

function current(a: typeof Api): Telemetry {
  // instruments from a meter taken before an SDK registered stay no-ops: rebuild on a new provider
  const provider = a.metrics.getMeterProvider();
  if (state?.provider === provider) return state.telemetry;
  const meter = provider.getMeter(SCOPE);
  const telemetry: Telemetry = {
    api: a,
    tracer: a.trace.getTracer(SCOPE),
    decisions: meter.createCounter("tessera.decisions", { description: "tool-call decisions, by outcome" }),
    decisionDuration: meter.createHistogram("tessera.decision.duration", {
      description: "how long a decision took",
      unit: "s",
    }),
    sourceErrors: meter.createCounter("tessera.source.errors", { description: "Source requests that failed" }),
    checkDuration: meter.createHistogram("tessera.check.duration", {
      description: "how long one Source request took",
      unit: "s",
    }),
    forwards: meter.createCounter("tessera.gateway.forwards", { description: "tools/call forwarded upstream" }),
  };
  state = { provider, telemetry };
  return telemetry;
}

/**
 * The registered SDK's telemetry, or null when none is registered; a promise only the first time
 * one is found, while the API loads.
 */
export function telemetry(): Telemetry | null | Promise<Telemetry | null> {
  if ((globalThis as Record<symbol, unknown>)[API_KEY] === undefined) return null;
  if (api !== undefined) return current(api);
  loading ??= import("@opentelemetry/api").then((m) => {
    api = m;
    return m;
  });
  return loading.then(current, () => null);
}

/** `db.system.name` of a Source kind (semantic conventions), or null for a kind that is no database. */
export function dbSystemName(kind: string): string | null {
  return kind === "postgres" ? "postgresql" : kind === "mysql" ? "mysql" : kind === "sqlite" ? "sqlite" : null;
}

/** Seconds since `started` (a `performance.now()` reading). */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}
