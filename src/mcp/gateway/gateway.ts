/**
 * The MCP gateway: an MCP server that proxies one upstream MCP server and grounds every
 * `tools/call` before forwarding it (DESIGN.md §10). `allow` forwards; `block` answers with a tool
 * error and never reaches the upstream; `hold` queues the call for review and answers with its id;
 * an approval lets exactly that call (tool, arguments digest, policy digest) through once before it
 * expires. Tool definitions are pinned at first sight; a changed one blocks its calls until
 * re-approved. Every decision, review and forward is an audit event (specs/gateway.md).
 * @module
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  ListToolsResultSchema,
  McpError,
  type Notification,
  ResultSchema,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { digestOf } from "../../platform/digest.js";
import { exceedsTotals, LIMITS } from "../limits.js";
import { ToolCallRequest } from "../requests.js";
import { StdioLineTransport } from "../stdio-transport.js";
import { callReviewEvent, REVIEW_EVENT, toolReviewEvent } from "../../review/events.js";
import { checkTtl } from "../../review/records.js";
import { DEFAULT_REVIEW_TTL_MS, type ReviewRecord, type ReviewStore } from "../../review/types.js";
import { settleHeld } from "../../review/binding.js";
import { auditCheck, decisionCodes, reasonLines } from "../../review/reasons.js";
import type { AuditSink, Clock, Decide, DecisionLike, GatewayCall } from "./types.js";
import { Upstream, UpstreamError, type UpstreamErrorCode, upstreamErrorOf, type UpstreamSpec } from "./upstream.js";

/** How long an approval stays valid unless configured: 15 minutes. */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;
/** How long the gateway waits for any upstream answer unless configured: 30 seconds. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** The `_meta` key of the gateway's verdict on a tool result it produced. */
export const GATEWAY_META_KEY = "tessera/gateway";

/** The event types the gateway writes (specs/gateway.md). */
export const EVENT = { decision: "tessera.decision.v1", review: REVIEW_EVENT, forward: "tessera.forward.v1" } as const;

/** Codes of blocks the gateway decides itself, before or instead of the policy. */
export type GatewayErrorCode =
  | "tool_not_listed"
  | "tool_definition_changed"
  | "input_too_large"
  | "gate_error"
  | "gateway_error";

/**
 * A proxy passes large payloads on, so only nesting is bounded: digesting, grounding and storing a
 * call all walk its arguments, and arguments nested thousands deep would exhaust the stack.
 */
const GATEWAY_LIMITS = {
  totalChars: Number.POSITIVE_INFINITY,
  totalElements: Number.POSITIVE_INFINITY,
  depth: LIMITS.depth,
};

/** What the gateway did with a call. */
export type GatewayAction = "forward" | "reject" | "hold";

/** Everything a gateway runs on. */
export interface GatewayOptions {
  readonly upstream: UpstreamSpec;
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
  /** The policy digest, for decisions made before the policy runs (a changed tool definition). */
  readonly policyDigest?: string | null;
  /**
   * The digest of the trusted context `decide` grounds with; approvals are bound to it, so an
   * approval given to one session's call is never used by another's (default: no context, `digestOf({})`).
   */
  readonly contextDigest?: string;
  /** The decision event's body for a policy decision (default: tool, decision, digests, value-free checks). */
  readonly describe?: (decision: DecisionLike, call: GatewayCall) => Record<string, unknown>;
  /** The gateway's own version, as it introduces itself. */
  readonly version?: string;
  /** Where the gateway reports what it cannot return to a caller (default: nowhere). */
  readonly onDiagnostic?: (line: string) => void;
}

/** A running gateway. */
export interface Gateway {
  readonly server: Server;
  readonly upstream: Upstream;
  /** Serve MCP clients over `transport`. */
  connect(transport: Transport): Promise<void>;
  /** Serve one MCP client over this process's stdin and stdout. */
  connectStdio(): Promise<void>;
  /** Resolves when no request is in flight (tools/call or passed through; each finished and answered). */
  drain(): Promise<void>;
  /** Close the server, the upstream and nothing else (the caller owns the store and audit log). */
  close(): Promise<void>;
}

interface ToolEntry {
  readonly digest: string;
}

type PinVerdict =
  | { readonly ok: true; readonly digest: string }
  | {
      readonly ok: false;
      readonly code: Extract<GatewayErrorCode, "tool_definition_changed" | "tool_not_listed">;
      readonly digest: string | null;
      readonly message: string;
    };

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
  const ttl = checkTtl(options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS, "approval");
  const reviewTtl = checkTtl(options.reviewTtlMs ?? DEFAULT_REVIEW_TTL_MS, "review");
  const { reviews, audit, decide } = options;
  const contextDigest = options.contextDigest ?? digestOf({});
  const describe = options.describe ?? defaultDescribe;
  const diagnostic = options.onDiagnostic ?? (() => undefined);
  const upstream = new Upstream(
    options.upstream,
    options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    options.version,
  );
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

  // the SDK answers logging/setLevel itself when logging is offered; the upstream must get it
  server.removeRequestHandler("logging/setLevel");

  // tool definitions as last listed by the upstream; refreshed on list_changed and reconnects
  let tools: Map<string, ToolEntry> | undefined;
  let refreshing: Promise<Map<string, ToolEntry>> | undefined;
  const invalidate = () => {
    tools = undefined;
  };
  upstream.onReset = invalidate;
  upstream.onNotification = (n: Notification) => {
    if (n.method === "notifications/tools/list_changed") invalidate();
    server.notification(n as never).catch(() => undefined);
  };
  server.fallbackNotificationHandler = async (n) => upstream.notify(n);
  // requests the upstream makes of the client (sampling, elicitation, roots) go to the gateway's client
  upstream.onRequest = async (req, signal) =>
    server.request({ method: req.method, params: req.params } as never, ResultSchema, {
      signal,
      timeout: upstream.timeoutMs,
    });

  const append = async (type: string, payload: Record<string, unknown>) => {
    await audit.append(type, payload);
  };

  /** Pin (first sight) or compare each listed definition; audit a change once. */
  const see = async (listed: readonly Tool[], into: Map<string, ToolEntry>) => {
    for (const tool of listed) {
      const digest = digestOf(tool);
      into.set(tool.name, { digest });
      const seen = await reviews.seeTool(tool.name, digest, tool, clock());
      if (seen.status === "pinned" || seen.newly_changed) {
        await append(
          REVIEW_EVENT,
          toolReviewEvent(
            seen.status === "pinned" ? "tool_pinned" : "tool_changed",
            tool.name,
            digest,
            seen.pinned_digest,
            null,
          ),
        );
      }
    }
  };

  const refreshTools = async (): Promise<Map<string, ToolEntry>> => {
    refreshing ??= (async () => {
      const next = new Map<string, ToolEntry>();
      let cursor: string | undefined;
      do {
        const page = await upstream.request<ListToolsResult>(
          { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
          ListToolsResultSchema,
        );
        await see(page.tools, next);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      tools = next;
      return next;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

  const checkPin = async (name: string): Promise<PinVerdict> => {
    let entry = tools?.get(name);
    if (entry === undefined) entry = (await refreshTools()).get(name);
    if (entry === undefined)
      return {
        ok: false,
        code: "tool_not_listed",
        digest: null,
        message: `the upstream does not list a tool \`${name}\``,
      };
    const pinned = await reviews.pinnedDigest(name);
    if (pinned === entry.digest) return { ok: true, digest: entry.digest };
    return {
      ok: false,
      code: "tool_definition_changed",
      digest: entry.digest,
      message: `the definition of \`${name}\` changed since it was pinned; a reviewer must run \`tessera review approve-tool ${name}\``,
    };
  };

  // requests in flight (tools/call and everything passed through), so a shutdown answers them first
  let inFlight = 0;
  const idle: (() => void)[] = [];
  const track =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      inFlight += 1;
      try {
        return await fn(...a);
      } finally {
        inFlight -= 1;
        if (inFlight === 0) for (const wake of idle.splice(0)) setImmediate(wake); // after the response is sent
      }
    };

  server.setRequestHandler(
    ListToolsRequestSchema,
    track(async (request, extra) => {
      const result = await passthrough<ListToolsResult>(
        { method: "tools/list", params: request.params },
        ListToolsResultSchema,
        extra.signal,
      );
      const into = tools ?? new Map<string, ToolEntry>();
      await see(result.tools, into);
      if (request.params?.cursor === undefined && result.nextCursor === undefined) tools = into;
      return result;
    }),
  );

  server.setRequestHandler(
    ToolCallRequest,
    track(async (request, extra) => {
      const name = request.params.name;
      const callId = randomUUID();
      const tooLarge = exceedsTotals(request.params.arguments ?? {}, GATEWAY_LIMITS);
      // arguments too deep to digest are never grounded nor forwarded: their event has no digest
      const args = tooLarge === null ? (request.params.arguments ?? {}) : {};
      const argumentsDigest = tooLarge === null ? digestOf(args) : null;
      const call = { tool: name, arguments: args };
      // decided by the gateway itself, before or instead of the policy: same event shape, with a reason
      const gatewayBlock = (code: GatewayErrorCode | UpstreamErrorCode, definitionDigest: string | null) => ({
        call_id: callId,
        ...describe(
          {
            decision: "block",
            tool: name,
            policy_digest: options.policyDigest ?? null,
            reason: code,
            checks: [],
          } as unknown as DecisionLike,
          call,
        ),
        ...(argumentsDigest === null ? { arguments_digest: null } : {}),
        definition_digest: definitionDigest,
        action: "reject",
        review_id: null,
        codes: [code],
      });
      try {
        if (argumentsDigest === null) {
          await append(EVENT.decision, gatewayBlock("input_too_large", null));
          return refusal(
            "block",
            callId,
            null,
            options.policyDigest ?? null,
            ["input_too_large"],
            `blocked by tessera: ${tooLarge}`,
          );
        }
        const pin = await checkPin(name);
        if (!pin.ok) {
          await append(EVENT.decision, gatewayBlock(pin.code, pin.digest));
          return refusal(
            "block",
            callId,
            null,
            options.policyDigest ?? null,
            [pin.code],
            `blocked by tessera: ${pin.message}`,
          );
        }
        let decision: DecisionLike;
        try {
          decision = await decide(call);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          await append(EVENT.decision, gatewayBlock("gate_error", pin.digest));
          return refusal(
            "block",
            callId,
            null,
            options.policyDigest ?? null,
            ["gate_error"],
            `blocked by tessera: the check could not run: ${message}`,
          );
        }
        const codes = decisionCodes(decision);
        const record = (action: GatewayAction, reviewId: string | null) =>
          append(EVENT.decision, {
            call_id: callId,
            ...describe(decision, call),
            definition_digest: pin.digest,
            action,
            review_id: reviewId,
            codes,
          });

        if (decision.decision === "allow") {
          await record("forward", null);
          return forward(request.params, callId, name, argumentsDigest, null, decision.policy_digest, extra);
        }
        if (decision.decision === "block") {
          await record("reject", null);
          return refusal(
            "block",
            callId,
            null,
            decision.policy_digest,
            codes,
            [`blocked by tessera (policy ${decision.policy_digest}):`, ...reasonLines(decision)].join("\n"),
          );
        }
        const key = {
          tool: name,
          arguments_digest: argumentsDigest,
          policy_digest: decision.policy_digest,
          context_digest: contextDigest,
        };
        const settled = await settleHeld(
          reviews,
          { key, arguments: args, decision, approvalTtlMs: ttl, reviewTtlMs: reviewTtl },
          clock,
        );
        if (settled.kind === "approved") {
          await record("forward", settled.review.id);
          await reviewEvent("consumed", settled.review);
          return forward(
            request.params,
            callId,
            name,
            argumentsDigest,
            settled.review.id,
            decision.policy_digest,
            extra,
          );
        }
        const { review, created } = settled;
        await record("hold", review.id);
        if (created) await reviewEvent("held", review);
        return refusal(
          "hold",
          callId,
          review.id,
          decision.policy_digest,
          codes,
          [
            `held for human review as ${review.id}: a reviewer can run \`tessera review approve ${review.id}\`, then repeat the identical call`,
            ...reasonLines(decision),
          ].join("\n"),
        );
      } catch (err) {
        if (err instanceof UpstreamError) {
          // the tool definitions could not be read (the upstream is down): fail closed, retryable
          await append(EVENT.decision, gatewayBlock(err.code, null)).catch(() => undefined);
          return refusal(
            "error",
            callId,
            null,
            options.policyDigest ?? null,
            [err.code],
            `the upstream failed (${err.code}): ${err.message}`,
          );
        }
        // the store or audit log failed: fail closed, the call is not forwarded
        const message = err instanceof Error ? err.message : String(err);
        diagnostic(`tessera gateway: ${name}: ${message}`);
        return refusal(
          "block",
          callId,
          null,
          options.policyDigest ?? null,
          ["gateway_error"],
          `blocked by tessera: the gateway could not record its decision: ${message}`,
        );
      }
    }),
  );

  async function reviewEvent(action: "held" | "consumed", r: ReviewRecord): Promise<void> {
    await append(REVIEW_EVENT, callReviewEvent(action, r));
  }

  async function forward(
    params: {
      name: string;
      arguments?: Record<string, unknown> | undefined;
      _meta?: Record<string, unknown> | undefined;
    },
    callId: string,
    name: string,
    argumentsDigest: string,
    reviewId: string | null,
    policyDigest: string,
    extra: {
      signal: AbortSignal;
      _meta?: Record<string, unknown> | undefined;
      sendNotification: (n: never) => Promise<void>;
    },
  ): Promise<CallToolResult> {
    let result: CallToolResult;
    let outcome: string;
    let errorCode: string | null = null;
    try {
      result = await upstream.request<CallToolResult>(
        { method: "tools/call", params: params as Record<string, unknown> },
        CallToolResultSchema,
        progressOptions(extra),
      );
      outcome = result.isError === true ? "tool_error" : "ok";
      // the upstream's result, unchanged but for the gateway's verdict beside its own _meta keys
      result = {
        ...result,
        _meta: {
          ...(result._meta ?? {}),
          [GATEWAY_META_KEY]: verdictMeta("forward", callId, reviewId, policyDigest, []),
        },
      };
    } catch (err) {
      const e = upstreamErrorOf(err);
      // the caller cancelled: the upstream was told, and no answer goes back
      outcome = extra.signal.aborted ? "cancelled" : "upstream_failed";
      errorCode = extra.signal.aborted ? null : e.code;
      result = refusal(
        "error",
        callId,
        reviewId,
        policyDigest,
        [e.code],
        `the upstream failed (${e.code}): ${e.message}`,
      );
    }
    try {
      await append(EVENT.forward, {
        call_id: callId,
        tool: name,
        arguments_digest: argumentsDigest,
        review_id: reviewId,
        outcome,
        error_code: errorCode,
      });
    } catch (err) {
      // the call already ran upstream: return its result and report the gap
      diagnostic(
        `tessera gateway: cannot record forward of ${callId}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return result;
  }

  /** Forward the caller's progress token and cancellation to the upstream request. */
  function progressOptions(extra: {
    signal: AbortSignal;
    _meta?: Record<string, unknown> | undefined;
    sendNotification: (n: never) => Promise<void>;
  }) {
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

  async function passthrough<T>(
    req: { method: string; params?: unknown },
    schema: typeof ResultSchema | typeof ListToolsResultSchema,
    signal: AbortSignal,
  ): Promise<T> {
    try {
      return await upstream.request<T>(
        { method: req.method, params: req.params as Record<string, unknown> | undefined },
        schema,
        { signal },
      );
    } catch (err) {
      const e = err instanceof UpstreamError ? err : upstreamErrorOf(err);
      throw new McpError(ErrorCode.InternalError, `${e.code}: ${e.message}`);
    }
  }

  // everything else (resources, prompts, completion, …) passes through unchanged
  server.fallbackRequestHandler = track(
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
    async drain() {
      await new Promise((resolve) => setImmediate(resolve)); // let requests already read start
      if (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
    connectStdio: async () => server.connect(new StdioLineTransport()),
    async close() {
      await server.close().catch(() => undefined);
      await upstream.close();
    },
  };
}

function defaultDescribe(decision: DecisionLike, call: GatewayCall): Record<string, unknown> {
  const out: Record<string, unknown> = {
    tool: call.tool,
    decision: decision.decision,
    policy_digest: decision.policy_digest,
    arguments_digest: digestOf(call.arguments),
  };
  if (decision.reason !== undefined) out.reason = decision.reason;
  out.checks = decision.checks.map(auditCheck);
  return out;
}

/** What the gateway did with a call, as `_meta["tessera/gateway"]` of every tools/call result carries it. */
export interface GatewayVerdict {
  /** `forward`: the upstream ran the call; `block` and `hold`: it did not; `error`: the upstream failed. */
  readonly decision: "forward" | "block" | "hold" | "error";
  readonly call_id: string;
  readonly review_id: string | null;
  readonly policy_digest: string | null;
  readonly codes: readonly string[];
}

function verdictMeta(
  decision: GatewayVerdict["decision"],
  callId: string,
  reviewId: string | null,
  policyDigest: string | null,
  codes: readonly string[],
): GatewayVerdict {
  return { decision, call_id: callId, review_id: reviewId, policy_digest: policyDigest, codes: [...codes] };
}

/** A tool result the gateway answers itself: an error the agent can read, with the verdict in `_meta`. */
function refusal(
  decision: "block" | "hold" | "error",
  callId: string,
  reviewId: string | null,
  policyDigest: string | null,
  codes: readonly string[],
  text: string,
): CallToolResult {
  return {
    content: [{ type: "text", text }],
    isError: true,
    _meta: { [GATEWAY_META_KEY]: verdictMeta(decision, callId, reviewId, policyDigest, codes) },
  };
}
