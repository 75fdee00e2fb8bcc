/**
 * The gateway's connection to its upstream MCP server: spawned over stdio or reached over
 * Streamable HTTP, every request bounded by a timeout, and reconnected on the next request after
 * the upstream crashes, so one failure never stops the gateway.
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { EXIT, type UpstreamErrorCode } from "../../platform/error-codes.js";
import { TesseraError } from "../../platform/errors.js";
import {
  type ClientCapabilities,
  ErrorCode,
  McpError,
  type Notification,
  type ServerCapabilities,
  type Implementation,
} from "@modelcontextprotocol/sdk/types.js";
import { CoalescedStdioClientTransport } from "./coalesced-stdio.js";

/** How to reach the upstream server. */
export type UpstreamSpec =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      readonly stderr?: "inherit" | "pipe" | "ignore";
    }
  | {
      readonly kind: "http";
      readonly url: string;
      /** Sent with every request to the upstream (an `Authorization` header, say). */
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "transport";
      /** A new transport for each (re)connection. */
      readonly create: () => Transport;
    };

/** Stable codes for upstream failures, as tool errors and forward events carry them. */
export type { UpstreamErrorCode };

/** An upstream request that failed, with its code: a `TesseraError` that ends a command with exit 4 (unavailable). */
export class UpstreamError extends TesseraError {
  declare readonly code: UpstreamErrorCode;
  constructor(code: UpstreamErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, undefined, { exitCode: EXIT.unavailable, cause: options?.cause });
    this.name = "UpstreamError";
  }
}

/** Classify whatever an upstream request rejected with. */
export function upstreamErrorOf(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const message = oneLine(err instanceof Error ? err.message : String(err));
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout)
      return new UpstreamError("upstream_timeout", "the upstream did not answer in time");
    if (err.code === ErrorCode.ConnectionClosed)
      return new UpstreamError("upstream_closed", "the upstream closed the connection");
    return new UpstreamError("upstream_error", message, { cause: err });
  }
  if (
    err instanceof Error &&
    (err.name === "ZodError" || err.name === "$ZodError" || Array.isArray((err as { issues?: unknown }).issues))
  ) {
    return new UpstreamError("upstream_malformed_response", "the upstream sent a malformed response");
  }
  return new UpstreamError("upstream_error", message);
}

/** The client features a connection offers upstream, compared by value. */
function sameFeatures(a: ClientCapabilities | undefined, b: ClientCapabilities): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/** The features of an MCP client the gateway relays upstream requests for: sampling, elicitation, roots. */
export function relayedFeatures(client: ClientCapabilities | undefined): ClientCapabilities {
  const out: ClientCapabilities = {};
  if (client?.sampling !== undefined) out.sampling = client.sampling;
  if (client?.elicitation !== undefined) out.elicitation = client.elicitation;
  if (client?.roots !== undefined) out.roots = client.roots;
  return out;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim().slice(0, 500);
}

/** What the first connection learned about the upstream. */
export interface UpstreamInfo {
  readonly capabilities: ServerCapabilities;
  readonly serverVersion: Implementation | undefined;
  readonly instructions: string | undefined;
}

/** A lazily (re)connected upstream client. */
export class Upstream {
  private current: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private closed = false;
  private generation = 0;
  // the client features offered upstream: the gateway's own client's (none until it initializes)
  private offered: ClientCapabilities = {};
  private currentOffer: ClientCapabilities | undefined;
  info: UpstreamInfo | undefined;
  /** Called with every notification the upstream sends. */
  onNotification: (n: Notification) => void = () => undefined;
  /** Answers requests the upstream sends (sampling, elicitation, roots); default: method not found. */
  onRequest: (
    req: { method: string; params?: Record<string, unknown> | undefined },
    signal: AbortSignal,
  ) => Promise<Record<string, unknown>> = async () => {
    throw new McpError(ErrorCode.MethodNotFound, "Method not found");
  };
  /** Called when a connection is lost or replaced (cached tool definitions are stale). */
  onReset: () => void = () => undefined;

  constructor(
    private readonly spec: UpstreamSpec,
    readonly timeoutMs: number,
    private readonly version = "0.0.0",
  ) {}

  /**
   * Offer the upstream exactly these client features (sampling, elicitation, roots) from now on:
   * what the gateway's own client declared. A connection made with other features is replaced on
   * the next request, so the upstream never asks for a feature the client lacks.
   */
  offer(capabilities: ClientCapabilities): void {
    this.offered = capabilities;
  }

  /** The connected client, connecting (again) when there is none or it offers stale features. */
  async client(): Promise<Client> {
    for (;;) {
      if (this.closed) throw new UpstreamError("upstream_unavailable", "the gateway is closing");
      if (this.current !== undefined && !sameFeatures(this.currentOffer, this.offered)) {
        const stale = this.current;
        this.current = undefined; // its onclose then resets nothing: the next connection does
        await stale.close().catch(() => undefined);
      }
      if (this.current !== undefined) return this.current;
      this.connecting ??= this.connect().finally(() => {
        this.connecting = undefined;
      });
      const client = await this.connecting;
      if (this.current === client && sameFeatures(this.currentOffer, this.offered)) return client;
    }
  }

  private transport(): Transport {
    const s = this.spec;
    if (s.kind === "transport") return s.create();
    if (s.kind === "http")
      return new StreamableHTTPClientTransport(
        new URL(s.url),
        s.headers ? { requestInit: { headers: { ...s.headers } } } : undefined,
      );
    return new CoalescedStdioClientTransport({
      command: s.command,
      args: [...s.args],
      ...(s.env ? { env: { ...s.env } } : {}),
      ...(s.cwd ? { cwd: s.cwd } : {}),
      stderr: s.stderr ?? "inherit",
    });
  }

  private async connect(): Promise<Client> {
    // the client features are offered on behalf of the MCP client connected to the gateway, and
    // only those it declared (none before it initializes)
    const offer = this.offered;
    const client = new Client({ name: "tessera-gateway", version: this.version }, { capabilities: offer });
    client.fallbackNotificationHandler = async (n) => this.onNotification(n);
    client.fallbackRequestHandler = async (req, extra) =>
      this.onRequest({ method: req.method, params: req.params as Record<string, unknown> | undefined }, extra.signal);
    const generation = ++this.generation;
    client.onclose = () => {
      if (this.current === client) {
        this.current = undefined;
        this.onReset();
      }
    };
    client.onerror = () => undefined; // a malformed line is dropped; its request times out
    try {
      // starting a process can take longer than one request may: allow at least 10 s
      await client.connect(this.transport(), { timeout: Math.max(this.timeoutMs, 10_000) });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new UpstreamError(
        "upstream_unavailable",
        `cannot connect to the upstream: ${oneLine(err instanceof Error ? err.message : String(err))}`,
      );
    }
    if (this.closed || generation !== this.generation) {
      await client.close().catch(() => undefined);
      throw new UpstreamError("upstream_unavailable", "the gateway is closing");
    }
    this.info ??= {
      capabilities: client.getServerCapabilities() ?? {},
      serverVersion: client.getServerVersion(),
      instructions: client.getInstructions(),
    };
    this.current = client;
    this.currentOffer = offer;
    if (generation > 1) this.onReset();
    return client;
  }

  /** Send one request upstream, bounded by the timeout; failures become `UpstreamError`s. */
  async request<T>(
    req: { method: string; params?: Record<string, unknown> | undefined },
    schema: Parameters<Client["request"]>[1],
    options: RequestOptions = {},
  ): Promise<T> {
    const client = await this.client();
    try {
      return (await client.request(req as never, schema, { timeout: this.timeoutMs, ...options })) as T;
    } catch (err) {
      throw upstreamErrorOf(err);
    }
  }

  /** Forward a notification upstream when connected; dropped otherwise. */
  async notify(n: Notification): Promise<void> {
    await this.current?.notification(n as never).catch(() => undefined);
  }

  /** Close the connection (and the upstream process). */
  async close(): Promise<void> {
    this.closed = true;
    const c = this.current;
    this.current = undefined;
    await c?.close().catch(() => undefined);
  }
}
