import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Source } from "../../src/checks/source.js";
import { compileMcpArguments, createMcpSource } from "../../src/sources/mcp.js";
import { closedPort, codeOf, never } from "./live.js";
import { FIXTURE, FIXTURE_DIR, startMcpHttp } from "./mcp-fixture.js";

const O1001 = { order_id: 1001, customer_id: "c-1", status: "delivered", amount_cents: 1500 };
const stdio = (config: Record<string, unknown> = {}) =>
  createMcpSource({
    name: "orders-mcp",
    config: { kind: "mcp", command: process.execPath, args: ["mcp-orders-server.mjs"], timeout_ms: 3000, ...config },
    baseDir: FIXTURE_DIR,
  });

/**
 * A JSON-RPC error response fails its own request only: a sibling call in flight on the same
 * connection still gets its answer, from the same server process, and nothing reconnects. -32000
 * is also the code the SDK gives a request when it closed the connection itself.
 */
async function expectErrorResponseIsolated(src: Source, name: string): Promise<void> {
  const pid = (await src.prepare({ tool: "pid", arguments: {} }).run({}, never)).rows[0]?.pid;
  const sibling = src.prepare({ tool: "hold", arguments: {} }).run({}, never);
  const failing = src.prepare({ tool: "rpc_error", arguments: { code: "{code}" } });
  for (const code of [-32000, -32099, -32603]) {
    const err = await failing.run({ code }, never).catch((e: Error) => e);
    expect([(err as { code?: string }).code, (err as Error).message]).toEqual([
      "source_server_error",
      `source \`${name}\`: server error (${code})`,
    ]);
  }
  expect((await src.prepare({ tool: "release", arguments: {} }).run({}, never)).rows).toEqual([{ released: 1 }]);
  expect((await sibling).rows).toEqual([{ held: true, pid }]);
  expect((await src.prepare({ tool: "pid", arguments: {} }).run({}, never)).rows[0]?.pid).toBe(pid);
}

describe("argument templates", () => {
  it("a whole-string placeholder passes the typed scalar; inner placeholders interpolate as text", () => {
    const t = compileMcpArguments({
      id: "{value}",
      flag: "{f}",
      note: "order {value} for {customer}",
      nested: { list: ["{value}", "x{f}"] },
      fixed: 3,
    });
    expect(t.parameters).toEqual(["value", "f", "customer"]);
    expect(t.bind({ value: 1001, f: true, customer: "c-1" })).toEqual({
      id: 1001,
      flag: true,
      note: "order 1001 for c-1",
      nested: { list: [1001, "xtrue"] },
      fixed: 3,
    });
    expect(t.bind({ value: 2n ** 60n, f: null, customer: "" })).toEqual({
      id: "1152921504606846976",
      flag: null,
      note: "order 1152921504606846976 for ",
      nested: { list: ["1152921504606846976", "xnull"] },
      fixed: 3,
    });
  });
});

describe("mcp source over stdio (the SDK-built fixture)", () => {
  let src: Source;
  beforeAll(async () => {
    src = await stdio();
  });
  afterAll(async () => {
    await src.close();
  });

  it("rows from structuredContent {rows: [...]}: one row, or none for an unknown order", async () => {
    const q = src.prepare({ tool: "get_order", arguments: { order_id: "{value}" } });
    expect(q.parameters).toEqual(["value"]);
    expect(await q.run({ value: 1001 }, never)).toEqual({ rows: [O1001] });
    expect(await q.run({ value: 4242 }, never)).toEqual({ rows: [] });
  });

  it("a bare structuredContent object is one row; JSON text content is parsed", async () => {
    expect(
      (await src.prepare({ tool: "find_order", arguments: { order_id: "{value}" } }).run({ value: 1001 }, never)).rows,
    ).toEqual([O1001]);
    expect(
      (await src.prepare({ tool: "find_order", arguments: { order_id: "{value}" } }).run({ value: 9 }, never)).rows,
    ).toEqual([]);
    expect(
      (await src.prepare({ tool: "list_refunds", arguments: { order_id: "{value}" } }).run({ value: 1002 }, never))
        .rows,
    ).toEqual([{ order_id: 1002 }]);
  });

  it("the server receives typed values and interpolated text", async () => {
    const q = src.prepare({ tool: "echo", arguments: { id: "{value}", ok: "{flag}", note: "order {value}" } });
    expect((await q.run({ value: 1001, flag: false }, never)).rows).toEqual([
      { json: '{"id":1001,"ok":false,"note":"order 1001"}', types: "number,boolean,string" },
    ]);
  });

  it("spawns the server once and reuses it; restarts it on the next request after it died", async () => {
    const pid = src.prepare({ tool: "pid", arguments: {} });
    const first = (await pid.run({}, never)).rows[0]?.pid;
    expect((await pid.run({}, never)).rows[0]?.pid).toBe(first);
    expect(await codeOf(src.prepare({ tool: "crash", arguments: {} }).run({}, never))).toBe("source_unreachable");
    const after = (await pid.run({}, never)).rows[0]?.pid;
    expect(typeof after).toBe("number");
    expect(after).not.toBe(first);
  });

  describe("fault matrix", () => {
    it("MCP tool error: isError gives source_tool_error", async () => {
      const err = await src
        .prepare({ tool: "fail", arguments: {} })
        .run({}, never)
        .catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe("source_tool_error");
    });
    it("timeout: the AbortSignal ends a call the tool never answers in time", async () => {
      const ac = new AbortController();
      const p = src.prepare({ tool: "slow", arguments: {} }).run({}, ac.signal);
      setTimeout(() => ac.abort(), 50);
      expect(await codeOf(p)).toBe("source_timeout");
    });
    it("timeout: the source's timeout_ms bounds the SDK request", async () => {
      const quick = await stdio({ timeout_ms: 300 });
      try {
        expect(await codeOf(quick.prepare({ tool: "slow", arguments: {} }).run({}, never))).toBe("source_timeout");
      } finally {
        await quick.close();
      }
    });
    it("server error: a handler that throws gives source_server_error", async () => {
      expect(await codeOf(src.prepare({ tool: "boom", arguments: {} }).run({}, never))).toBe("source_server_error");
    });
    it("a JSON-RPC error response (-32000 too) is an error of that request only: no respawn, the sibling answered", async () => {
      await expectErrorResponseIsolated(src, "orders-mcp");
    });
    it("invalid query: an unknown tool (InvalidParams) gives source_invalid_query", async () => {
      expect(await codeOf(src.prepare({ tool: "no_such_tool", arguments: {} }).run({}, never))).toBe(
        "source_invalid_query",
      );
    });
    it("malformed response: non-JSON text or no content gives source_malformed_response", async () => {
      expect(await codeOf(src.prepare({ tool: "bad_text", arguments: {} }).run({}, never))).toBe(
        "source_malformed_response",
      );
      expect(await codeOf(src.prepare({ tool: "empty", arguments: {} }).run({}, never))).toBe(
        "source_malformed_response",
      );
    });
    it("unreachable: a command that does not exist gives source_unreachable", async () => {
      const bad = await stdio({ command: "/nonexistent/tessera-mcp-server", args: [] });
      try {
        expect(await codeOf(bad.prepare({ tool: "pid", arguments: {} }).run({}, never))).toBe("source_unreachable");
      } finally {
        await bad.close();
      }
    });
  });
});

describe("mcp source over Streamable HTTP (the same fixture, --http)", () => {
  let server: Awaited<ReturnType<typeof startMcpHttp>>;
  beforeAll(async () => {
    server = await startMcpHttp({ MCP_TOKEN: "mcp-s3cret" });
  });
  afterAll(async () => {
    await server.close();
  });
  const http = (headers: Record<string, string>) =>
    createMcpSource({
      name: "orders-http",
      config: { kind: "mcp", url: server.url, headers, timeout_ms: 3000 },
      baseDir: "/",
    });

  it("calls the tool with the configured headers", async () => {
    const src = await http({ Authorization: "Bearer mcp-s3cret" });
    try {
      expect(
        (await src.prepare({ tool: "get_order", arguments: { order_id: "{value}" } }).run({ value: 1001 }, never)).rows,
      ).toEqual([O1001]);
      expect(await codeOf(src.prepare({ tool: "fail", arguments: {} }).run({}, never))).toBe("source_tool_error");
    } finally {
      await src.close();
    }
  });

  it("a JSON-RPC error response is an error of that request only: the sibling call is answered", async () => {
    const src = await http({ Authorization: "Bearer mcp-s3cret" });
    try {
      await expectErrorResponseIsolated(src, "orders-http");
    } finally {
      await src.close();
    }
  });

  it("authentication failure: a wrong token gives source_auth_failed, without the token in the message", async () => {
    const src = await http({ Authorization: "Bearer wrong-mcp-token" });
    try {
      const err = await src
        .prepare({ tool: "pid", arguments: {} })
        .run({}, never)
        .catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe("source_auth_failed");
      expect((err as Error).message).not.toContain("wrong-mcp-token");
    } finally {
      await src.close();
    }
  });

  it("a restarted server is reached again on the next request", async () => {
    const src = await http({ Authorization: "Bearer mcp-s3cret" });
    const port = new URL(server.url).port;
    try {
      const q = src.prepare({ tool: "pid", arguments: {} });
      const before = (await q.run({}, never)).rows[0]?.pid;
      await server.close();
      expect(await codeOf(q.run({}, never))).toBe("source_unreachable");
      server = await startMcpHttp({ MCP_TOKEN: "mcp-s3cret", PORT: port });
      const after = (await q.run({}, never)).rows[0]?.pid;
      expect(typeof after).toBe("number");
      expect(after).not.toBe(before);
    } finally {
      await src.close();
    }
  });

  it("connection refused: a closed port gives source_unreachable", async () => {
    const port = await closedPort();
    const src = await createMcpSource({
      name: "x",
      config: { url: `http://127.0.0.1:${port}/mcp`, timeout_ms: 1000 },
      baseDir: "/",
    });
    try {
      expect(await codeOf(src.prepare({ tool: "pid", arguments: {} }).run({}, never))).toBe("source_unreachable");
    } finally {
      await src.close();
    }
  });
});

it("the fixture path exists", async () => {
  const { existsSync } = await import("node:fs");
  expect(existsSync(FIXTURE)).toBe(true);
});
