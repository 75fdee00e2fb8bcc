// A real SDK Client over Streamable HTTP against `tessera mcp --http` on 127.0.0.1: the same results
// as over stdio and from the library; requests without the token, with a wrong token, a foreign
// Origin or a foreign Host are refused; HTTP never starts without a token.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyClaims } from "../../src/actions/index.js";
import { canonicalJson } from "../../src/core/index.js";
import { refuse } from "../../src/mcp/http.js";
import { removeCaseFiles, SERVER_ARGS, TOOL_CASES } from "./cases.js";
import { CLAIMS } from "./fixtures.js";
import { call, cli, errorCode, httpClient, type HttpServerProcess, startHttp, TOKEN } from "./helpers.js";

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** POST an initialize request with exactly these headers (node:http, so Host can be forged). */
function post(port: number, headers: Record<string, string>, body = INIT): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let server: HttpServerProcess;

beforeAll(async () => {
  server = await startHttp(SERVER_ARGS);
});

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  removeCaseFiles();
});

describe("tessera mcp --http", () => {
  it("binds 127.0.0.1 and announces its URL on stderr", () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
  });

  it("serves an SDK client with the token: tools listed, results identical to the library", async () => {
    const client = await httpClient(server.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("verify_claims");
      const r = await call(client, "verify_claims", { claims: CLAIMS });
      expect(canonicalJson(r.structuredContent)).toBe(canonicalJson(verifyClaims(CLAIMS)));
      const bad = await call(client, "verify_claims", { claims: 3 });
      expect(errorCode(bad)).toBe("invalid_arguments");
      const again = await call(client, "verify_claims", { claims: CLAIMS });
      expect(again.structuredContent).toStrictEqual(r.structuredContent);
    } finally {
      await client.close();
    }
  });

  it("gives every tool's result byte-identical to the library and the CLI --json", async () => {
    const client = await httpClient(server.url);
    try {
      const { tools } = await client.listTools();
      expect(new Set(tools.map((t) => t.name))).toStrictEqual(new Set(TOOL_CASES.map((c) => c.tool)));
      for (const c of TOOL_CASES) {
        const r = await call(client, c.tool, c.args);
        expect(r.isError, c.label).toBeFalsy();
        const wire = canonicalJson(r.structuredContent);
        expect(wire, c.label).toBe(canonicalJson(await c.library()));
        expect(wire, c.label).toBe(canonicalJson(JSON.parse(cli(c.cli).stdout)));
      }
    } finally {
      await client.close();
    }
  });

  it("answers concurrent calls over the shared workspace and gate, each identical to the library", async () => {
    const client = await httpClient(server.url);
    try {
      const picks = TOOL_CASES.filter((c) => c.tool === "draft_action" || c.tool === "check_tool_call");
      const expected = await Promise.all(picks.map(async (c) => canonicalJson(await c.library())));
      const rounds = Array.from({ length: 4 }, () => picks).flat();
      const results = await Promise.all(rounds.map((c) => call(client, c.tool, c.args)));
      results.forEach((r, i) =>
        expect(canonicalJson(r.structuredContent), rounds[i]!.label).toBe(expected[i % picks.length]),
      );
    } finally {
      await client.close();
    }
  });

  it("accepts a raw request with the token and a local Origin (control for the refusals below)", async () => {
    const r = await post(server.port, { authorization: `Bearer ${TOKEN}`, origin: `http://localhost:${server.port}` });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ id: 1, result: { serverInfo: { name: "tessera" } } });
  });

  const refusals: [string, () => Record<string, string>, number, RegExp][] = [
    ["no token", () => ({}), 401, /a bearer token is required/],
    ["a wrong token", () => ({ authorization: `Bearer ${TOKEN}x` }), 401, /wrong bearer token/],
    ["a token without the Bearer scheme", () => ({ authorization: TOKEN }), 401, /a bearer token is required/],
    [
      "a foreign Origin",
      () => ({ authorization: `Bearer ${TOKEN}`, origin: "https://evil.example" }),
      403,
      /foreign origin `https:\/\/evil.example`/,
    ],
    [
      "a local Origin on another port",
      () => ({ authorization: `Bearer ${TOKEN}`, origin: `http://127.0.0.1:${server.port + 1}` }),
      403,
      /foreign origin/,
    ],
    [
      "a foreign Host (DNS rebinding)",
      () => ({ authorization: `Bearer ${TOKEN}`, host: `evil.example:${server.port}` }),
      403,
      /foreign host `evil.example:\d+`/,
    ],
  ];
  for (const [what, headers, status, message] of refusals) {
    it(`refuses a request with ${what} (${status})`, async () => {
      const r = await post(server.port, headers());
      expect(r.status).toBe(status);
      expect((JSON.parse(r.body) as { error: { message: string } }).error.message).toMatch(message);
    });
  }

  it("refuses a body over 4 MiB before parsing it (413), and keeps serving", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "ground", arguments: { question: "x".repeat(5 * 2 ** 20) } },
    });
    const r = await post(server.port, { authorization: `Bearer ${TOKEN}` }, big);
    expect(r.status).toBe(413);
    expect((await post(server.port, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it("refuses an SDK client without the token", async () => {
    await expect(httpClient(server.url, {})).rejects.toThrow(/401|unauthorized/i);
  });

  it("keeps serving after the refusals", async () => {
    const client = await httpClient(server.url);
    try {
      const r = await call(client, "list_actions", {});
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe("starting HTTP", () => {
  it("refuses to start without TESSERA_MCP_TOKEN: exit 2 with a clear message", () => {
    const r = cli(["mcp", "--http"], { env: { TESSERA_MCP_TOKEN: "" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "tessera mcp: `--http` needs a bearer token in `TESSERA_MCP_TOKEN`; refusing to serve without one\n",
    );
    expect(r.stdout).toBe("");
  });

  it("refuses a short token", () => {
    const r = cli(["mcp", "--http"], { env: { TESSERA_MCP_TOKEN: "hunter2" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/must be at least 16 characters/);
  });

  it("rejects a bad port and --port without --http", () => {
    expect(cli(["mcp", "--http", "--port", "80a"], { env: { TESSERA_MCP_TOKEN: TOKEN } }).stderr).toMatch(
      /`--port` must be a port number, got `80a`/,
    );
    const r = cli(["mcp", "--port", "8080"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/`--port` needs `--http`/);
  });
});

describe("the refusal log", () => {
  it("names the path, never the query string a client may have put a token in", async () => {
    const { openServices, serveHttp } = await import("../../src/mcp/index.js");
    const services = await openServices({});
    const lines: string[] = [];
    const handle = await serveHttp(services, { port: 0, token: TOKEN, log: (l) => lines.push(l) });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: handle.port,
            path: "/mcp?access_token=secret-in-the-query-0123",
            method: "POST",
            headers: { "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(INIT);
      });
      expect(status).toBe(401);
      expect(lines).toEqual(["refused POST /mcp: unauthorized: a bearer token is required"]);
    } finally {
      await handle.close();
      await services.close();
    }
  });
});

describe("refuse()", () => {
  const ok = { host: "127.0.0.1:7000", authorization: `Bearer ${TOKEN}` };
  it("passes a local request with the token, with or without a local Origin", () => {
    expect(refuse({ url: "/mcp", headers: ok }, 7000, TOKEN)).toBeNull();
    expect(
      refuse({ url: "/mcp", headers: { ...ok, host: "localhost:7000", origin: "http://localhost:7000" } }, 7000, TOKEN),
    ).toBeNull();
  });
  it("checks the path, then Host and Origin, then the token", () => {
    expect(refuse({ url: "/other", headers: ok }, 7000, TOKEN)?.status).toBe(404);
    expect(refuse({ url: "/mcp", headers: { ...ok, host: "127.0.0.1:7001" } }, 7000, TOKEN)?.status).toBe(403);
    expect(refuse({ url: "/mcp", headers: { authorization: ok.authorization } }, 7000, TOKEN)?.status).toBe(403);
    expect(refuse({ url: "/mcp", headers: { ...ok, origin: "null" } }, 7000, TOKEN)?.status).toBe(403);
    expect(refuse({ url: "/mcp", headers: { host: ok.host, authorization: "Bearer " } }, 7000, TOKEN)?.status).toBe(
      401,
    );
  });
  it("refuses look-alike hosts and origins: IPv6, no port, another scheme, a suffix, a foreign Host without Origin", () => {
    for (const headers of [
      { ...ok, host: "[::1]:7000" },
      { ...ok, host: "127.0.0.1" },
      { ...ok, host: "evil.example:7000" },
      { ...ok, origin: "https://127.0.0.1:7000" },
      { ...ok, origin: "http://127.0.0.1:7000.evil.example" },
      { ...ok, origin: "http://127.0.0.1:70001" },
    ]) {
      expect(refuse({ url: "/mcp", headers }, 7000, TOKEN)?.status, JSON.stringify(headers)).toBe(403);
    }
    expect(
      refuse({ url: "/mcp", headers: { ...ok, host: "LOCALHOST:7000", origin: "HTTP://LOCALHOST:7000" } }, 7000, TOKEN),
    ).toBeNull();
  });
  it("takes the auth scheme in any case (RFC 9110), but never a token that differs by one character", () => {
    expect(refuse({ url: "/mcp", headers: { ...ok, authorization: `bearer ${TOKEN}` } }, 7000, TOKEN)).toBeNull();
    expect(refuse({ url: "/mcp", headers: { ...ok, authorization: `BEARER ${TOKEN}` } }, 7000, TOKEN)).toBeNull();
    expect(
      refuse({ url: "/mcp", headers: { ...ok, authorization: `Bearer ${TOKEN.toUpperCase()}x` } }, 7000, TOKEN)
        ?.message,
    ).toBe("unauthorized: wrong bearer token");
    expect(
      refuse({ url: "/mcp", headers: { ...ok, authorization: `Bearer ${TOKEN.slice(0, -1)}` } }, 7000, TOKEN)?.status,
    ).toBe(401);
    expect(refuse({ url: "/mcp", headers: { ...ok, authorization: `Basic ${TOKEN}` } }, 7000, TOKEN)?.message).toBe(
      "unauthorized: a bearer token is required",
    );
  });
});
