/**
 * The gateway's verdict on a tools/call, as `_meta["tessera/gateway"]` of every result carries it,
 * and the tool results the gateway answers itself (block, hold, error).
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The `_meta` key of the gateway's verdict on a tool result it produced. */
export const GATEWAY_META_KEY = "tessera/gateway";

/** What the gateway did with a call, as `_meta["tessera/gateway"]` of every tools/call result carries it. */
export interface GatewayVerdict {
  /** `forward`: the upstream ran the call; `block` and `hold`: it did not; `error`: the upstream failed. */
  readonly decision: "forward" | "block" | "hold" | "error";
  readonly call_id: string;
  readonly review_id: string | null;
  readonly policy_digest: string | null;
  readonly codes: readonly string[];
  /** Only on a call forwarded in shadow mode (adr/0128): `false`, the policy's decision was not enforced. */
  readonly enforced?: false;
  /** With `enforced: false`: what the policy decided (`allow`, `block` or `hold`). */
  readonly policy_decision?: "allow" | "block" | "hold";
}

/** A shadow-mode decision the gateway forwarded anyway: what the policy said, and why. */
export interface ShadowVerdict {
  readonly decision: "allow" | "block" | "hold";
  readonly codes: readonly string[];
}

/** The verdict of one call. */
export function verdictMeta(
  decision: GatewayVerdict["decision"],
  callId: string,
  reviewId: string | null,
  policyDigest: string | null,
  codes: readonly string[],
  shadow?: ShadowVerdict,
): GatewayVerdict {
  const out: GatewayVerdict = {
    decision,
    call_id: callId,
    review_id: reviewId,
    policy_digest: policyDigest,
    codes: [...codes],
  };
  return shadow === undefined ? out : { ...out, enforced: false, policy_decision: shadow.decision };
}

/** What a refusal says: the verdict's fields and the text the agent reads. */
export interface RefusalOptions {
  readonly decision: "block" | "hold" | "error";
  readonly callId: string;
  readonly reviewId?: string | null;
  readonly policyDigest: string | null;
  readonly codes: readonly string[];
  readonly text: string;
}

/** A tool result the gateway answers itself: an error the agent can read, with the verdict in `_meta`. */
export function refusal(r: RefusalOptions): CallToolResult {
  return {
    content: [{ type: "text", text: r.text }],
    isError: true,
    _meta: {
      [GATEWAY_META_KEY]: verdictMeta(r.decision, r.callId, r.reviewId ?? null, r.policyDigest, r.codes),
    },
  };
}
