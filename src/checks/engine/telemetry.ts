/**
 * The engine's spans and metrics (adr/0129): one `tessera.decision` span per decision, a
 * `tessera.check` span per Source request under it, and the decision and Source-error metrics.
 * Only names, outcomes, codes and digests are recorded, never an argument or a row value.
 * @module
 */
import type { Context, Span } from "@opentelemetry/api";
import { dbSystemName, secondsSince, type Telemetry } from "../../platform/telemetry.js";
import type { Decision, ToolCall } from "../decision.js";
import type { CheckPolicy } from "../policy.js";

/** A decision being traced: the telemetry and the context its check spans start in. */
export interface TracedDecision {
  readonly tel: Telemetry;
  readonly parent: Context;
}

/** Run `decide` inside a `tessera.decision` span, and count and time the decision it returns. */
export async function tracedDecision(
  tel: Telemetry,
  call: ToolCall,
  decide: (traced: TracedDecision) => Promise<Decision>,
): Promise<Decision> {
  const { api } = tel;
  const started = performance.now();
  const tool = typeof call?.tool === "string" ? call.tool : "";
  const span = tel.tracer.startSpan(
    "tessera.decision",
    { kind: api.SpanKind.INTERNAL, attributes: { "gen_ai.tool.name": tool } },
    api.context.active(),
  );
  try {
    const d = await decide({ tel, parent: api.trace.setSpan(api.context.active(), span) });
    const enforced = d.enforced !== false;
    span.setAttributes({
      "tessera.decision": d.decision,
      "tessera.policy.digest": d.policy_digest,
      "tessera.enforced": enforced,
      "tessera.checks": d.checks.length,
      ...(d.reason !== undefined ? { "tessera.decision.reason": d.reason } : {}),
    });
    tel.decisions.add(1, { "tessera.decision": d.decision, "tessera.enforced": enforced });
    tel.decisionDuration.record(secondsSince(started), { "tessera.decision": d.decision });
    return d;
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    span.setAttribute("error.type", typeof code === "string" ? code : "_OTHER");
    span.setStatus({ code: api.SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

/** One Source request of a check being traced. */
export interface AttemptSpan {
  /** End the span with how the request went: the check's status, rows, or the error's code. */
  end(result: { status: string; rows: number | null; error?: string | undefined }): void;
}

/** Start the span of request `attempt` (1-based) of `check` on a Source of `kind`. */
export function attemptSpan(
  traced: TracedDecision,
  check: CheckPolicy,
  argument: string,
  index: number,
  attempt: number,
  kind: string,
): AttemptSpan {
  const { tel } = traced;
  const { api } = tel;
  const db = dbSystemName(kind);
  const common: Record<string, string> = { "tessera.source.name": check.source, "tessera.source.kind": kind };
  if (db !== null) common["db.system.name"] = db;
  const started = performance.now();
  const span: Span = tel.tracer.startSpan(
    `tessera.check ${check.source}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes: {
        ...common,
        "tessera.check.argument": argument,
        "tessera.check.index": index,
        "tessera.check.attempt": attempt,
        ...(kind === "mcp" && check.tool !== undefined
          ? { "mcp.method.name": "tools/call", "gen_ai.tool.name": check.tool }
          : {}),
      },
    },
    traced.parent,
  );
  return {
    end(result) {
      span.setAttribute("tessera.check.status", result.status);
      if (result.rows !== null) span.setAttribute("db.response.returned_rows", result.rows);
      if (result.error !== undefined) {
        span.setAttribute("error.type", result.error);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        if (result.error.startsWith("source_")) tel.sourceErrors.add(1, { ...common, "error.type": result.error });
      }
      tel.checkDuration.record(secondsSince(started), common);
      span.end();
    },
  };
}
