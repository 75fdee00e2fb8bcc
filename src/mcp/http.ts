/**
 * Streamable HTTP for the MCP server: bound to 127.0.0.1, `Host` and `Origin` checked against that
 * address (DNS-rebinding protection), and a bearer token required on every request
 * (adr/0032-mcp-http-transport-security.md). Stateless: each request gets its own `McpServer` over
 * the shared, already-opened services.
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { TesseraError } from "../platform/errors.js";
import { parseJson } from "../platform/json.js";
import { buildServer } from "./server.js";
import type { Services } from "./tools.js";

/** The environment variable holding the bearer token HTTP clients must send. */
export const TOKEN_ENV = "TESSERA_MCP_TOKEN";

/** The one address the HTTP transport binds. */
export const HTTP_HOST = "127.0.0.1";

/** The endpoint path. */
export const HTTP_PATH = "/mcp";

/** The largest request body read, in bytes. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Shortest accepted token: a guessable token is no protection. */
export const MIN_TOKEN_LENGTH = 16;

/** A running HTTP server. */
export interface HttpHandle {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The bound port (the free one picked for port 0). */
  readonly port: number;
  /** Stop listening, answer the requests in flight, then close every connection. */
  close(): Promise<void>;
}

/** Why a request was refused, or null when it may reach the MCP transport. */
export interface Refusal {
  readonly status: 401 | 403 | 404;
  readonly message: string;
}

/** Check one request's path, `Host`, `Origin` and bearer token; pure, so it is tested on its own. */
export function refuse(
  req: { url?: string | undefined; headers: IncomingHttpHeaders },
  port: number,
  token: string,
): Refusal | null {
  const path = (req.url ?? "").split("?")[0];
  if (path !== HTTP_PATH) return { status: 404, message: `not found: the endpoint is ${HTTP_PATH}` };
  const hosts = [`${HTTP_HOST}:${port}`, `localhost:${port}`];
  const host = req.headers.host;
  if (host === undefined || !hosts.includes(host.toLowerCase())) {
    return { status: 403, message: `forbidden: foreign host \`${host ?? ""}\`` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.map((h) => `http://${h}`).includes(origin.toLowerCase())) {
    return { status: 403, message: `forbidden: foreign origin \`${origin}\`` };
  }
  const auth = req.headers.authorization;
  // the scheme is case-insensitive (RFC 9110 §11.1); the token is compared exactly
  const presented = auth !== undefined && auth.slice(0, 7).toLowerCase() === "bearer " ? auth.slice(7) : undefined;
  if (presented === undefined || !sameSecret(presented, token)) {
    return {
      status: 401,
      message:
        presented === undefined ? "unauthorized: a bearer token is required" : "unauthorized: wrong bearer token",
    };
  }
  return null;
}

function sameSecret(a: string, b: string): boolean {
  // equal-length digests, so the comparison time does not depend on the token
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}

/** The token from the environment; HTTP never starts without one. */
export function tokenFrom(env: Readonly<Record<string, string | undefined>>): string {
  const token = env[TOKEN_ENV];
  if (token === undefined || token === "") {
    throw new TesseraError(
      "token_missing",
      `\`--http\` needs a bearer token in \`${TOKEN_ENV}\`; refusing to serve without one`,
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new TesseraError("token_too_short", `\`${TOKEN_ENV}\` must be at least ${MIN_TOKEN_LENGTH} characters`);
  }
  return token;
}

/** Serve `services` over Streamable HTTP on 127.0.0.1:`port` (0 picks a free port). */
export async function serveHttp(
  services: Services,
  options: { port: number; token: string; log?: (line: string) => void },
): Promise<HttpHandle> {
  const log = options.log ?? (() => {});
  let port = options.port;
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refusal = refuse(req, port, options.token);
    if (refusal !== null) {
      // the path only: a query string may carry a token a client put in the wrong place
      log(
        `refused ${req.method ?? "?"} ${JSON.stringify((req.url ?? "").split("?")[0]).slice(1, -1)}: ${refusal.message}`,
      );
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (refusal.status === 401) headers["www-authenticate"] = 'Bearer realm="tessera"';
      res
        .writeHead(refusal.status, headers)
        .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: refusal.message }, id: null }));
      return;
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readBody(req);
      if ("error" in read) {
        log(`refused POST: ${read.error.message}`);
        res
          .writeHead(read.status, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", error: read.error, id: null }));
        return;
      }
      body = read.body;
    }
    const mcp = buildServer(services);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      log(`request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "internal error" }, id: null }));
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new TesseraError("listen_failed", `cannot listen on ${HTTP_HOST}:${options.port}: ${err.code ?? err.message}`),
      ),
    );
    server.listen(options.port, HTTP_HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${HTTP_HOST}:${port}${HTTP_PATH}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // requests in flight are answered; idle keep-alive connections go now, stragglers after 5 s
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

type BodyRead =
  | { readonly body: unknown }
  | { readonly status: number; readonly error: { readonly code: number; readonly message: string } };

/**
 * A POST body read in full (up to MAX_BODY_BYTES) and parsed by the strict reader, so a duplicate key
 * or a rounded number is refused here rather than read one way by the SDK and another by a client.
 */
async function readBody(req: IncomingMessage): Promise<BodyRead> {
  const tooLarge: BodyRead = {
    status: 413,
    error: { code: -32600, message: `invalid request: the body is over ${MAX_BODY_BYTES} bytes` },
  };
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
    req.resume(); // read and drop it, so the client gets the answer rather than a reset connection
    return tooLarge;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // read to the end even past the limit: leaving the loop early would reset the connection
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) return tooLarge;
  try {
    return { body: parseJson(Buffer.concat(chunks).toString("utf8")) };
  } catch (err) {
    if (err instanceof TesseraError) {
      const params = err.path?.startsWith("params") === true;
      return {
        status: 400,
        error: {
          code: params ? -32602 : -32600,
          message: `${params ? "invalid params" : "invalid request"}: ${err.message}`,
        },
      };
    }
    return { status: 400, error: { code: -32700, message: "parse error: the body is not valid JSON" } };
  }
}
