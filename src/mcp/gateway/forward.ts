/**
 * Forwarding one grounded call to the upstream: the caller's progress and cancellation go along,
 * the upstream's result comes back with the gateway's verdict beside its own `_meta`, and the
 * forward event is written after the upstream answered or failed.
 * @module
 */
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { GATEWAY_META_KEY, type ShadowVerdict, refusal, verdictMeta } from "./verdict.js";
import { type Upstream, upstreamErrorOf } from "./upstream.js";
import { type Telemetry, telemetry } from "../../platform/telemetry.js";

/** The forward event type. */
export const FORWARD_EVENT = "tessera.forward.v1";

/** What the SDK hands a request handler, as forwarding needs it. */
export interface HandlerExtra {
  readonly signal: AbortSignal;
  readonly _meta?: Record<string, unknown> | undefined;
  readonly sendNotification: (n: never) => Promise<void>;
}

/** One call the policy (or an approval) let through. */
export interface Forwarding {
  readonly params: { name: string; arguments?: Record<string, unknown> | undefined; _meta?: unknown };
  readonly callId: string;
  readonly name: string;
  readonly argumentsDigest: string;
  readonly reviewId: string | null;
  readonly policyDigest: string;
  /** Shadow mode (adr/0128): what the policy decided, which the gateway did not enforce. */
  readonly shadow?: ShadowVerdict;
}

/** Forward the caller's progress token and cancellation to the upstream request. */
function progressOptions(extra: HandlerExtra) {
  const token = extra._meta?.progressToken as string | number | undefined;
  return {
    signal: extra.signal,
    ...(token === undefined
      ? {}
      : {
          onprogress: (p: { progress: number; total?: number; message?: string }) => {
            extra
              .sendNotification({ method: "notifications/progress", params: { ...p, progressToken: token } } as never)
              .catch(() => undefined);
          },
        }),
  };
}

/**
 * The `tools/call {tool}` client span of one forward (adr/0129), in the MCP semantic conventions;
 * null when no SDK is registered. Its attributes are names, ids and the keyed arguments digest.
 */
function forwardSpan(tel: Telemetry | null, f: Forwarding) {
  if (tel === null) return null;
  const { api } = tel;
  const span = tel.tracer.startSpan(
    `tools/call ${f.name}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": f.name,
        "tessera.call.id": f.callId,
        "tessera.arguments.digest": f.argumentsDigest,
        "tessera.policy.digest": f.policyDigest,
        ...(f.reviewId !== null ? { "tessera.review.id": f.reviewId } : {}),
        ...(f.shadow !== undefined ? { "tessera.enforced": false, "tessera.decision": f.shadow.decision } : {}),
      },
    },
    api.context.active(),
  );
  return {
    end(outcome: string, errorCode: string | null) {
      span.setAttribute("tessera.forward.outcome", outcome);
      const error = errorCode ?? (outcome === "tool_error" ? "tool_error" : null);
      if (error !== null) {
        span.setAttribute("error.type", error);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      tel.forwards.add(1, { "tessera.forward.outcome": outcome });
      span.end();
    },
  };
}

/** Send `f` upstream and answer with its result; an upstream failure is a coded tool error. */
export async function forwardCall(
  upstream: Upstream,
  append: (type: string, payload: Record<string, unknown>) => Promise<void>,
  diagnostic: (line: string) => void,
  f: Forwarding,
  extra: HandlerExtra,
): Promise<CallToolResult> {
  let result: CallToolResult;
  let outcome: string;
  let errorCode: string | null = null;
  const found = telemetry();
  const span = forwardSpan(found instanceof Promise ? await found : found, f);
  try {
    result = await upstream.request<CallToolResult>(
      { method: "tools/call", params: f.params as Record<string, unknown> },
      CallToolResultSchema,
      progressOptions(extra),
    );
    outcome = result.isError === true ? "tool_error" : "ok";
    // the upstream's result, unchanged but for the gateway's verdict beside its own _meta keys
    result = {
      ...result,
      _meta: {
        ...(result._meta ?? {}),
        [GATEWAY_META_KEY]: verdictMeta(
          "forward",
          f.callId,
          f.reviewId,
          f.policyDigest,
          f.shadow?.codes ?? [],
          f.shadow,
        ),
      },
    };
  } catch (err) {
    const e = upstreamErrorOf(err);
    // the caller cancelled: the upstream was told, and no answer goes back
    outcome = extra.signal.aborted ? "cancelled" : "upstream_failed";
    errorCode = extra.signal.aborted ? null : e.code;
    result = refusal({
      decision: "error",
      callId: f.callId,
      reviewId: f.reviewId,
      policyDigest: f.policyDigest,
      codes: [e.code],
      text: `the upstream failed (${e.code}): ${e.message}`,
    });
  }
  span?.end(outcome, errorCode);
  try {
    await append(FORWARD_EVENT, {
      call_id: f.callId,
      tool: f.name,
      arguments_digest: f.argumentsDigest,
      review_id: f.reviewId,
      outcome,
      error_code: errorCode,
    });
  } catch (err) {
    // the call already ran upstream: return its result and report the gap
    diagnostic(
      `tessera gateway: cannot record forward of ${f.callId}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return result;
}
