/**
 * The MCP gateway: an MCP server that proxies one upstream MCP server and grounds every
 * `tools/call` before forwarding it (specs/gateway.md). `allow` forwards; `block` answers with a tool
 * error and never reaches the upstream; `hold` queues the call for review and answers with its id;
 * an approval lets exactly that call through once before it expires. Tool definitions are pinned
 * at first sight; a changed one blocks its calls until re-approved. Every decision, review and
 * forward is an audit event (specs/gateway.md). This file wires the parts: the call pipeline
 * (`tools-call.ts`), pinning (`pins.ts`), in-flight accounting (`in-flight.ts`) and pass-through.
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  ListToolsResultSchema,
  McpError,
  type Notification,
  ResultSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import type { Digester } from "../../platform/digest.js";
import { REVIEW_EVENT } from "../../review/events.js";
import { checkTtl } from "../../review/records.js";
import { DEFAULT_REVIEW_TTL_MS, type ReviewStore } from "../../review/types.js";
import { ToolCallRequest } from "../requests.js";
import { StdioLineTransport } from "../stdio-transport.js";
import { type CallSetup, DECISION_EVENT } from "./call-setup.js";
import type { UndeclaredRule } from "./declared.js";
import { defaultDescribe, withEffectiveDigest } from "./describe.js";
import { dropCallNotification } from "./drop.js";
import { FORWARD_EVENT } from "./forward.js";
import { holdNotifications, type NotifyOptions } from "./hold-notify.js";
import { HoldWaits, type HoldWaitOptions } from "./hold-wait.js";
import { InFlight } from "./in-flight.js";
import { ToolPins } from "./pins.js";
import { handleToolCall } from "./tools-call.js";
import type { AuditSink, Clock, Decide, DecisionLike, GatewayCall } from "./types.js";
import { relayedFeatures, Upstream, upstreamErrorOf, type UpstreamSpec } from "./upstream.js";

export { GATEWAY_META_KEY, type GatewayVerdict } from "./verdict.js";

/** How long an approval stays valid unless configured: 15 minutes. */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;
/** How long the gateway waits for any upstream answer unless configured: 30 seconds. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/** The event types the gateway writes (specs/gateway.md). */
export const EVENT = { decision: DECISION_EVENT, review: REVIEW_EVENT, forward: FORWARD_EVENT } as const;

/** Codes of blocks the gateway decides itself, before or instead of the policy. */
export type GatewayErrorCode =
  | "tool_not_listed"
  | "tool_definition_changed"
  | "input_too_large"
  | "gate_error"
  | "gateway_error"
  | "tools_call_notification"
  | "argument_undeclared"
  | "argument_shadowed"
  | "review_denied";

/** What the gateway did with a call; `drop`: a tools/call sent as a notification, never answered nor forwarded. */
export type GatewayAction = "forward" | "reject" | "hold" | "drop";

/** Everything a gateway runs on. */
export interface GatewayOptions {
  /**
   * How to reach the upstream, or an `Upstream` already connected (the CLI connects before it opens
   * the store, so a gateway that cannot start leaves nothing behind; `upstreamTimeoutMs` is then its own).
   */
  readonly upstream: UpstreamSpec | Upstream;
  /** Grounds one call (the check engine). */
  readonly decide: Decide;
  readonly reviews: ReviewStore;
  readonly audit: AuditSink;
  readonly clock?: Clock;
  /** How long an approval stays valid (default `DEFAULT_APPROVAL_TTL_MS`, 15 minutes). */
  readonly approvalTtlMs?: number;
  /** How long a held call waits for a reviewer before it expires (default `DEFAULT_REVIEW_TTL_MS`, a day). */
  readonly reviewTtlMs?: number;
  readonly upstreamTimeoutMs?: number;
  /**
   * The policy digest, for decisions made before the policy runs (a changed tool definition); a
   * function for a policy that can be reloaded (adr/0130), read at each such decision.
   */
  readonly policyDigest?: string | null | (() => string | null);
  /**
   * The effective policy digest (after `${VAR}` interpolation, `effectivePolicyDigest(policy)`):
   * approvals and decision events are bound to it besides the document digest (adr/0066). Default:
   * none (`null` in events, `""` in review keys).
   */
  readonly effectiveDigest?: string | ((policyDigest: string) => string | null);
  /**
   * The digest of the trusted context `decide` grounds with; approvals are bound to it, so an
   * approval given to one session's call is never used by another's: `reviews.digest(context)`, the
   * store's keyed digest (default: no context, `reviews.digest({})`).
   */
  readonly contextDigest?: string;
  /** The names of the trusted context's keys, kept with a held call for its reviewer (default: none). */
  readonly contextKeys?: readonly string[];
  /**
   * The decision event's body for a policy decision (default: tool, decision, digests, value-free
   * checks); `digest` is the review store's keyed digest, for the arguments and context digests.
   */
  readonly describe?: (decision: DecisionLike, call: GatewayCall, digest: Digester) => Record<string, unknown>;
  /** The gateway's own version, as it introduces itself. */
  readonly version?: string;
  /**
   * The policy's rule for arguments a tool's pinned `inputSchema` does not declare (default: `refuse`
   * for every tool; the CLI reads `tools.<tool>.undeclared_arguments`). Shadow keys are refused either way.
   */
  readonly undeclaredArguments?: (tool: string) => UndeclaredRule;
  /** Where the gateway reports what it cannot return to a caller (default: nowhere). */
  readonly onDiagnostic?: (line: string) => void;
  /**
   * Keep a held call open while a reviewer decides, up to `ms` (at most 10 minutes), with progress
   * notifications to a client that sent a progress token (`--hold-wait`, adr/0121). Default: a held
   * call is answered at once.
   */
  readonly holdWait?: HoldWaitOptions;
  /**
   * POST a notification to each of `urls` when this gateway holds a call and when that hold is
   * decided (`--notify`, specs/gateway.md "Notifications", adr/0122). Default: none.
   */
  readonly notify?: NotifyOptions;
}

/** A running gateway. */
export interface Gateway {
  readonly server: Server;
  readonly upstream: Upstream;
  /** Serve MCP clients over `transport`. */
  connect(transport: Transport): Promise<void>;
  /** Serve one MCP client over this process's stdin and stdout. */
  connectStdio(): Promise<void>;
  /**
   * Resolves when no request is in flight (tools/call or passed through; each finished and
   * answered); held calls still waiting for a decision are answered as held at once.
   */
  drain(): Promise<void>;
  /** Close the server, the upstream and nothing else (the caller owns the store and audit log). */
  close(): Promise<void>;
  /** How many held calls are waiting for a decision now (`holdWait`; 0 without it). */
  holdsWaiting(): number;
}

/** Keep the server features the gateway can pass through, and always offer tools. */
function mirror(caps: ServerCapabilities): ServerCapabilities {
  const out: ServerCapabilities = { tools: { ...(caps.tools ?? {}) } };
  if (caps.resources) out.resources = caps.resources;
  if (caps.prompts) out.prompts = caps.prompts;
  if (caps.logging) out.logging = caps.logging;
  if (caps.completions) out.completions = caps.completions;
  return out;
}

/** Connect to the upstream, mirror its capabilities and return the gateway, ready to `connect`. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const clock = options.clock ?? Date.now;
  // checked here, not at the first held call, where a bad value could only block it
  const approvalTtlMs = checkTtl(options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS, "approval");
  const reviewTtlMs = checkTtl(options.reviewTtlMs ?? DEFAULT_REVIEW_TTL_MS, "review");
  const given = options.effectiveDigest;
  const policyDigestNow =
    typeof options.policyDigest === "function"
      ? options.policyDigest
      : () => (options.policyDigest as string | null) ?? null;
  // a reloadable policy names the effective digest of the policy each decision was made under
  const effectiveDigestOf = (policyDigest: string | null): string | null =>
    typeof given === "function" ? (policyDigest === null ? null : given(policyDigest)) : (given ?? null);
  const described = options.describe ?? defaultDescribe;
  const diagnostic = options.onDiagnostic ?? (() => undefined);
  const holdWaits =
    options.holdWait === undefined ? undefined : new HoldWaits(options.holdWait, options.reviews, clock, diagnostic);
  const upstream =
    options.upstream instanceof Upstream
      ? options.upstream
      : new Upstream(options.upstream, options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS, options.version);
  await upstream.client();
  const info = upstream.info!;

  const server = new Server(
    { name: "tessera-gateway", version: options.version ?? "0.0.0" },
    {
      capabilities: mirror(info.capabilities),
      ...(info.instructions !== undefined ? { instructions: info.instructions } : {}),
    },
  );
  // a malformed line from the client (answered on the wire) and other protocol errors
  server.onerror = (err) => diagnostic(`tessera gateway: ${err.message}`);
  // offer the upstream the client features the gateway's client has, and no others
  server.oninitialized = () => upstream.offer(relayedFeatures(server.getClientCapabilities()));
  // the SDK answers logging/setLevel itself when logging is offered; the upstream must get it
  server.removeRequestHandler("logging/setLevel");

  const notifications =
    options.notify === undefined ? undefined : holdNotifications(options.reviews, clock, options.notify, diagnostic);
  const append = async (type: string, payload: Record<string, unknown>) => {
    await options.audit.append(type, payload);
    // a hold queued now is reported, and watched until decided, beside the call
    if (notifications !== undefined && type === REVIEW_EVENT && payload.action === "held")
      notifications.held(payload.review_id as string);
  };
  // tool definitions as last listed by the upstream; refreshed on list_changed and reconnects
  const pins = new ToolPins(upstream, options.reviews, append, clock);
  const setup: CallSetup = {
    upstream,
    pins,
    reviews: options.reviews,
    decide: options.decide,
    // the effective digest sits beside the document digest in every decision event
    describe: (decision, call) =>
      withEffectiveDigest(
        described(decision, call, options.reviews.digest),
        effectiveDigestOf(decision.policy_digest ?? policyDigestNow()),
      ),
    append,
    clock,
    approvalTtlMs,
    reviewTtlMs,
    get policyDigest() {
      return policyDigestNow();
    },
    effectiveDigestOf,
    contextDigest: options.contextDigest ?? options.reviews.digest({}),
    contextKeys: options.contextKeys ?? [],
    undeclaredRule: options.undeclaredArguments ?? (() => "refuse"),
    diagnostic,
    ...(holdWaits !== undefined ? { holdWaits } : {}),
  };

  upstream.onReset = () => pins.invalidate();
  upstream.onNotification = (n: Notification) => {
    if (n.method === "notifications/tools/list_changed") pins.invalidate();
    server.notification(n as never).catch(() => undefined);
  };
  server.fallbackNotificationHandler = async (n) => {
    // a tools/call without an id has no answer to carry a verdict: never grounded, so never forwarded
    if (n.method === "tools/call") return dropCallNotification(setup, n.params);
    await upstream.notify(n);
  };
  // requests the upstream makes of the client (sampling, elicitation, roots) go to the gateway's client
  upstream.onRequest = async (req, signal) =>
    server.request({ method: req.method, params: req.params } as never, ResultSchema, {
      signal,
      timeout: upstream.timeoutMs,
    });

  // requests in flight (tools/call and everything passed through), so a shutdown answers them first
  const inFlight = new InFlight();

  server.setRequestHandler(
    ListToolsRequestSchema,
    inFlight.track(async (request, extra) => {
      let result: ListToolsResult;
      try {
        result = await upstream.request<ListToolsResult>(
          { method: "tools/list", params: request.params as Record<string, unknown> | undefined },
          ListToolsResultSchema,
          { signal: extra.signal },
        );
      } catch (err) {
        const e = upstreamErrorOf(err);
        throw new McpError(ErrorCode.InternalError, `${e.code}: ${e.message}`);
      }
      await pins.listed(result, request.params?.cursor);
      return result;
    }),
  );

  server.setRequestHandler(
    ToolCallRequest,
    inFlight.track(async (request, extra) => handleToolCall(setup, request.params, extra)),
  );

  // everything else (resources, prompts, completion, …) passes through unchanged
  server.fallbackRequestHandler = inFlight.track(
    async (
      request: Parameters<NonNullable<Server["fallbackRequestHandler"]>>[0],
      extra: Parameters<NonNullable<Server["fallbackRequestHandler"]>>[1],
    ) => {
      if (request.method === "tools/call") throw new McpError(ErrorCode.InternalError, "tools/call must be grounded");
      try {
        return await upstream.request(
          { method: request.method, params: request.params as Record<string, unknown> | undefined },
          ResultSchema,
          { signal: extra.signal },
        );
      } catch (err) {
        const e = upstreamErrorOf(err);
        const cause = (err as { cause?: unknown }).cause ?? err;
        // an error the upstream answered with keeps its JSON-RPC code
        if (e.code === "upstream_error" && cause instanceof McpError) throw cause;
        throw new McpError(ErrorCode.InternalError, `${e.code}: ${e.message}`);
      }
    },
  );

  return {
    server,
    upstream,
    connect: (transport) => server.connect(transport),
    holdsWaiting: () => holdWaits?.count ?? 0,
    drain: () => {
      holdWaits?.stop();
      return inFlight.drain();
    },
    connectStdio: async () => server.connect(new StdioLineTransport()),
    async close() {
      holdWaits?.stop();
      await server.close().catch(() => undefined);
      await upstream.close();
      await notifications?.close();
    },
  };
}
