/**
 * Forwarding one grounded call to the upstream: the caller's progress and cancellation go along,
 * the upstream's result comes back with the gateway's verdict beside its own `_meta`, and the
 * forward event is written after the upstream answered or failed.
 * @module
 */
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { GATEWAY_META_KEY, refusal, verdictMeta } from "./verdict.js";
import { type Upstream, upstreamErrorOf } from "./upstream.js";

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
        [GATEWAY_META_KEY]: verdictMeta("forward", f.callId, f.reviewId, f.policyDigest, []),
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
