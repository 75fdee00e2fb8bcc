/**
 * The stdio transport of Tessera's MCP server and gateway: newline-delimited JSON-RPC, like the
 * SDK's `StdioServerTransport`, but a line that is not a message MCP accepts gets the answer
 * JSON-RPC 2.0 prescribes (`-32700` parse error, `-32600` invalid request) instead of none, so a
 * client that sent it is told why rather than left waiting.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { scanJson } from "../platform/json.js";
import { isObject } from "../platform/objects.js";

/** The longest line read (the SDK's stdio limit): a longer one is answered once and skipped. */
export const MAX_LINE_BYTES = 10 * 2 ** 20;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/** Newline-delimited JSON-RPC over a pair of streams, answering lines that are not messages. */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private pending = 0; // bytes in `chunks`
  private skipping = false; // inside a line longer than MAX_LINE_BYTES, already answered
  private started = false;
  private closed = false;
  private drained: Promise<void> | null = null; // one wait for the output to drain, shared by every writer

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error("the stdio transport is already started");
    this.started = true;
    this.input.on("data", this.onData);
    this.input.on("error", this.onInputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onInputError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.chunks = [];
    this.pending = 0;
    this.onclose?.();
  }

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10)) {
      const tail = data.subarray(0, nl);
      data = data.subarray(nl + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.pending + tail.length > MAX_LINE_BYTES) {
        this.tooLong();
        continue;
      }
      const line = this.chunks.length === 0 ? tail : Buffer.concat([...this.chunks, tail]);
      this.chunks = [];
      this.pending = 0;
      this.handle(line.toString("utf8"));
    }
    if (this.skipping || data.length === 0) return;
    if (this.pending + data.length > MAX_LINE_BYTES) {
      this.tooLong();
      this.skipping = true;
      return;
    }
    this.chunks.push(data);
    this.pending += data.length;
  };

  private tooLong(): void {
    this.chunks = [];
    this.pending = 0;
    this.refuse(null, INVALID_REQUEST, `invalid request: a line longer than ${MAX_LINE_BYTES} bytes`);
  }

  private handle(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // not V8's message: it quotes the line, control characters and all, into the operator's log
      this.refuse(null, PARSE_ERROR, "parse error: the line is not valid JSON");
      return;
    }
    // a duplicate key or a number JSON.parse rounded: the gateway would ground one value and forward another
    const ambiguous = typeof value === "object" && value !== null ? scanJson(line) : null;
    if (ambiguous !== null) {
      const where = ambiguous.path.startsWith("params") ? INVALID_PARAMS : INVALID_REQUEST;
      const what = where === INVALID_PARAMS ? "invalid params" : "invalid request";
      this.refuse(idOf(value), where, `${what}: ${ambiguous.path}: ${ambiguous.message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      try {
        this.onmessage?.(parsed.data);
      } catch (err) {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
      return;
    }
    const object = isObject(value) ? value : null;
    // a malformed response from the client: nothing waits for an answer to it, so it is only reported
    if (object !== null && !("method" in object) && ("result" in object || "error" in object)) {
      this.onerror?.(new Error(`invalid JSON-RPC message from the client: ${whatIsWrong(object)}`));
      return;
    }
    this.refuse(
      idOf(value),
      INVALID_REQUEST,
      `invalid request: ${object === null ? "expected a JSON-RPC 2.0 object" : whatIsWrong(object)}`,
    );
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }

  private corked = false;

  private write(text: string): Promise<void> {
    // the messages written during one callback of the event loop (and its promise jobs) leave in one
    // write: with calls in flight, one system call and one wake-up of the reader, not one per answer
    if (!this.corked) {
      this.corked = true;
      this.output.cork();
      process.nextTick(() => {
        this.corked = false;
        this.output.uncork();
      });
    }
    if (this.output.write(text)) return Promise.resolve();
    this.drained ??= new Promise((resolve) => {
      this.output.once("drain", () => {
        this.drained = null;
        resolve();
      });
    });
    return this.drained;
  }
}

/** The first thing wrong with an object that is not a JSON-RPC 2.0 message MCP accepts. */
function whatIsWrong(m: Record<string, unknown>): string {
  if (m.jsonrpc !== "2.0") return '`jsonrpc` must be "2.0"';
  if ("method" in m && typeof m.method !== "string") return "`method` must be a string";
  if ("id" in m && typeof m.id !== "string" && !Number.isSafeInteger(m.id))
    return "`id` must be a string or an integer";
  if ("params" in m && !isObject(m.params)) return "`params` must be an object";
  const meta = "params" in m ? (m.params as Record<string, unknown>)._meta : undefined;
  if (meta !== undefined && !isObject(meta)) return "`params._meta` must be an object";
  return "not a JSON-RPC 2.0 request, notification or response";
}

/** The id to answer a refused message with: its own when it is a string or a safe integer, else null. */
function idOf(value: unknown): string | number | null {
  if (!isObject(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : null;
}
