/**
 * The MCP Source (the SDK's Client): calls one tool of an MCP server over stdio (spawned once,
 * reused, restarted on the next request after it dies) or Streamable HTTP. `"{name}"` in the
 * check's `arguments` passes the typed scalar; a placeholder inside a longer string interpolates
 * as text. Rows come from `structuredContent` or from JSON text content; `isError` is an error.
 * The only module besides src/mcp/ that imports the MCP SDK (adr/0002).
 * @module
 */
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type {
  McpRequest,
  PreparedRequest,
  RequestDescription,
  Source,
  SourceInit,
  SourceResult,
} from "../checks/source.js";
import { SourceError } from "../checks/source.js";
import type { Row } from "../core/index.js";
import { TesseraError } from "../platform/errors.js";
import { abortable, errnoOf, parseJsonAnswer, rowsAt, UNREACHABLE_ERRNO } from "./adapter-util.js";
import type { SourceConfigOf } from "../checks/source-config.js";
import { sourceConfig } from "./config.js";
import { compileMcpArguments } from "./mcp-arguments.js";

export { compileMcpArguments, type McpTemplate } from "./mcp-arguments.js";

/** Rows of a tool result: structuredContent, else the first text content parsed as JSON. */
export function rowsOfToolResult(result: Record<string, unknown>, where: string): Row[] {
  if (result.isError === true) throw new SourceError("source_tool_error", `${where}: the tool returned an error`);
  const fromObject = (o: unknown): Row[] => {
    // `{rows: [...]}` is a list of rows; any other object is one row
    if (
      o !== null &&
      typeof o === "object" &&
      !Array.isArray(o) &&
      Object.hasOwn(o, "rows") &&
      Array.isArray((o as { rows: unknown }).rows)
    ) {
      return rowsAt(o, "rows", where);
    }
    return rowsAt(o, undefined, where);
  };
  if (result.structuredContent !== undefined) return fromObject(result.structuredContent);
  const content = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
  const first = content.find((c) => c.type === "text" && typeof c.text === "string");
  if (first === undefined)
    throw new SourceError(
      "source_malformed_response",
      `${where}: the tool returned neither structured content nor text`,
    );
  const body = parseJsonAnswer(first.text as string, where, "the tool's text content is not json");
  return Array.isArray(body) ? rowsAt(body, undefined, where) : fromObject(body);
}

/**
 * Map a failure to the shared codes. `closed` says whether the connection really closed: the SDK
 * gives its own `ConnectionClosed` (-32000) to every pending request then, but a server may send
 * -32000 in an error response too, and that is an error of that one request (adr/0062).
 */
function mapMcpError(where: string, err: unknown, closed: boolean): SourceError {
  if (err instanceof SourceError) return err;
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout)
      return new SourceError("source_timeout", `${where}: the tool did not answer within its timeout`);
    if (err.code === ErrorCode.ConnectionClosed && closed)
      return new SourceError("source_unreachable", `${where}: the server closed the connection`);
    if (err.code === ErrorCode.MethodNotFound || err.code === ErrorCode.InvalidParams)
      return new SourceError("source_invalid_query", `${where}: the server refused the call (${err.code})`);
    if (err.code === ErrorCode.ParseError || err.code === ErrorCode.InvalidRequest)
      return new SourceError("source_malformed_response", `${where}: protocol error (${err.code})`);
    return new SourceError("source_server_error", `${where}: server error (${err.code})`);
  }
  const name = (err as { name?: unknown })?.name;
  if (name === "AbortError" || name === "TimeoutError")
    return new SourceError("source_timeout", `${where}: no answer within its timeout`);
  if (name === "UnauthorizedError") return new SourceError("source_auth_failed", `${where}: unauthorized`);
  if (name === "ZodError" || err instanceof SyntaxError)
    return new SourceError("source_malformed_response", `${where}: the server's reply is not a valid mcp message`);
  const status = (err as { code?: unknown })?.code;
  if (typeof status === "number" && status >= 100 && status <= 599) {
    if (status === 401 || status === 403) return new SourceError("source_auth_failed", `${where}: http ${status}`);
    if (status >= 500) return new SourceError("source_server_error", `${where}: http ${status}`);
    return new SourceError("source_unreachable", `${where}: http ${status}`);
  }
  const errno = errnoOf(err);
  if (errno !== undefined && UNREACHABLE_ERRNO.has(errno))
    return new SourceError("source_unreachable", `${where}: cannot reach the server (${errno})`);
  if (errno === "ETIMEDOUT") return new SourceError("source_timeout", `${where}: connection timed out`);
  const message = String((err as { message?: unknown })?.message ?? "");
  if (/\b(401|403)\b/.test(message) && /unauthori[sz]ed|forbidden|http/i.test(message))
    return new SourceError("source_auth_failed", `${where}: unauthorized`);
  if (/fetch failed|closed|not connected|EPIPE/i.test(message))
    return new SourceError("source_unreachable", `${where}: cannot reach the server`);
  return new SourceError("source_server_error", `${where}: request failed`);
}

class McpSource implements Source<McpRequest> {
  readonly kind = "mcp";
  readonly timeoutMs: number;
  readonly #name: string;
  readonly #where: string;
  readonly #open: () => Transport;
  #client: Promise<Client> | undefined;
  /** Clients whose connection closed (the SDK called their `onclose`). */
  readonly #ended = new WeakSet<Client>();
  #closed = false;

  constructor(init: SourceInit<"mcp">, config: SourceConfigOf<"mcp">) {
    const { name, baseDir } = init;
    this.#name = name;
    this.#where = `source \`${name}\``;
    this.timeoutMs = config.timeout_ms;
    // the schema allows exactly one of `command` (stdio) and `url` (streamable http)
    const { command, url } = config;
    if (command !== undefined) {
      const args = config.args ?? [];
      const env = config.env;
      const cwd = resolve(baseDir, config.cwd ?? ".");
      this.#open = () =>
        new StdioClientTransport({ command, args, cwd, stderr: "ignore", ...(env !== undefined ? { env } : {}) });
    } else if (url !== undefined) {
      const endpoint = new URL(url);
      const headers = config.headers ?? {};
      this.#open = () => new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } });
    } else {
      throw new TesseraError("policy_invalid", "an mcp source needs `command` or `url`", `sources.${name}`);
    }
  }

  prepare(request: McpRequest): PreparedRequest {
    if (request.tool === "")
      throw new SourceError("source_invalid_query", `${this.#where}: an mcp check needs a \`tool\``);
    const tool = request.tool;
    const template = compileMcpArguments(request.arguments ?? {});
    return {
      parameters: template.parameters,
      run: async (params, signal) => this.#run(tool, template.bind(params), signal),
    };
  }

  /** The connected client: one per source, reconnected (a stdio server respawned) after it closed. */
  #connect(): Promise<Client> {
    if (this.#client !== undefined) return this.#client;
    const attempt = (async (): Promise<Client> => {
      const client = new Client({ name: "tessera", version: "0.1.0" }, { capabilities: {} });
      client.onclose = () => {
        this.#ended.add(client);
        if (this.#client === attempt) this.#client = undefined;
      };
      client.onerror = () => undefined;
      await client.connect(this.#open(), { timeout: this.timeoutMs });
      return client;
    })();
    this.#client = attempt;
    attempt.catch(() => {
      if (this.#client === attempt) this.#client = undefined;
    });
    return attempt;
  }

  async #run(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<SourceResult> {
    if (this.#closed) throw new SourceError("source_unreachable", `${this.#where} is closed`);
    let client: Client | undefined;
    try {
      // the SDK request honours the signal (and sends a cancellation); connecting is bounded by timeout_ms
      client =
        this.#client !== undefined
          ? await this.#client
          : await abortable(this.#name, signal, this.#connect(), () => undefined);
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.timeoutMs,
      });
      return { rows: rowsOfToolResult(result as Record<string, unknown>, this.#where) };
    } catch (err) {
      const mapped = mapMcpError(this.#where, err, client === undefined || this.#ended.has(client));
      // a lost server (a stale HTTP session, a dead process) gets a fresh client on the next request;
      // an error response never drops it, so requests in flight beside it are answered
      if (mapped.code === "source_unreachable") this.#drop();
      throw mapped;
    }
  }

  /** The tool must be in the server's tools/list; its rows are known only by calling it, which lint never does. */
  async describe(request: McpRequest): Promise<RequestDescription> {
    this.prepare(request);
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const client = await abortable(this.#name, signal, this.#connect(), () => undefined);
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          signal,
          timeout: this.timeoutMs,
        });
        for (const t of page.tools) names.push(t.name);
        cursor = page.nextCursor;
      } while (cursor !== undefined && names.length < 100_000);
      if (!names.includes(request.tool!))
        throw new SourceError(
          "source_invalid_query",
          `${this.#where}: the server lists no tool \`${request.tool}\`${
            names.length > 0
              ? ` (it lists ${names
                  .slice(0, 10)
                  .map((n) => `\`${n}\``)
                  .join(", ")})`
              : ""
          }`,
        );
      return {
        columns: null,
        checked: "tool listed by the server (its rows are known only by calling it: not called)",
      };
    } catch (err) {
      throw mapMcpError(this.#where, err, false);
    }
  }

  /** Forget the current client and close it in the background. */
  #drop(): void {
    const stale = this.#client;
    this.#client = undefined;
    stale
      ?.then(
        (c) => c.close(),
        () => undefined,
      )
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const pending = this.#client;
    this.#client = undefined;
    if (pending !== undefined) await (await pending.catch(() => undefined))?.close();
  }
}

/** Factory for `kind: mcp` sources. */
export async function createMcpSource(init: SourceInit<"mcp">): Promise<Source<McpRequest>> {
  return new McpSource(init, await sourceConfig("mcp", init));
}
