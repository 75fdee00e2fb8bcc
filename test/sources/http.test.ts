import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Source } from "../../src/checks/source.js";
import { compileHttpPath, createHttpSource } from "../../src/sources/http.js";
import { closedPort, codeOf, never } from "./live.js";
import { type Order, startGarbageHttp, startOrdersServer, type TestServer } from "./http-server.js";

const ORDERS: Order[] = [
  { order_id: 1001, customer_id: "c-1", status: "delivered", amount_cents: 1500 },
  { order_id: 1002, customer_id: "c-2", status: "refunded", amount_cents: 900 },
];
const SECRET = "s3cret-token";

describe("http source against a real server on 127.0.0.1", () => {
  let server: TestServer;
  let other: TestServer;
  let src: Source;
  const make = (config: Record<string, unknown> = {}) =>
    createHttpSource({
      name: "orders-api",
      config: {
        kind: "http",
        base_url: server.base,
        headers: { Authorization: `Bearer ${SECRET}` },
        timeout_ms: 2000,
        ...config,
      },
      baseDir: "/",
    });

  beforeAll(async () => {
    other = await startOrdersServer(ORDERS);
    server = await startOrdersServer(ORDERS, other.base);
    src = await make();
  });
  afterAll(async () => {
    await src.close();
    await server.close();
    await other.close();
  });

  it("an object body is one row; the placeholder is bound and encoded", async () => {
    const q = src.prepare({ path: "/orders/{value}" });
    expect(q.parameters).toEqual(["value"]);
    expect(await q.run({ value: 1001 }, never)).toEqual({ rows: [ORDERS[0]] });
  });

  it("404 is zero rows by default and an error with not_found: error", async () => {
    expect(await src.prepare({ path: "/orders/{value}" }).run({ value: 4242 }, never)).toEqual({ rows: [] });
    const strict = await make({ not_found: "error" });
    expect(await codeOf(strict.prepare({ path: "/orders/{value}" }).run({ value: 4242 }, never))).toBe(
      "source_invalid_query",
    );
  });

  it("rows: a dot path into the body, query placeholders", async () => {
    const refunds = await make({ rows: "items" });
    const q = refunds.prepare({ path: "/refunds?order_id={value}" });
    expect((await q.run({ value: 1002 }, never)).rows).toEqual([{ order_id: 1002 }]);
    expect((await q.run({ value: 1001 }, never)).rows).toEqual([]);
    const nested = await make({ rows: "data.items" });
    expect((await nested.prepare({ path: "/nested" }).run({}, never)).rows).toEqual(ORDERS);
    expect(await codeOf(nested.prepare({ path: "/orders/{value}" }).run({ value: 1001 }, never))).toBe(
      "source_malformed_response",
    );
  });

  it("a base_url with a path prefix keeps it", async () => {
    const prefixed = await createHttpSource({ name: "p", config: { base_url: `${server.base}/echo/` }, baseDir: "/" });
    const { rows } = await prefixed.prepare({ path: "/x/{value}" }).run({ value: "a b" }, never);
    expect(rows[0]?.target).toBe("/echo/x/a%20b");
  });

  it("follows a same-origin redirect with the headers, refuses another origin, bounds the hops", async () => {
    expect((await src.prepare({ path: "/redirect-same" }).run({}, never)).rows).toEqual([ORDERS[0]]);
    const before = other.seen.length;
    expect(await codeOf(src.prepare({ path: "/redirect-other" }).run({}, never))).toBe("source_server_error");
    expect(other.seen.length).toBe(before);
    expect(await codeOf(src.prepare({ path: "/redirect-loop" }).run({}, never))).toBe("source_server_error");
  });

  it("refuses a value that would leave an empty or dot segment", async () => {
    for (const value of ["", ".", ".."]) {
      expect(await codeOf(src.prepare({ path: "/orders/{value}" }).run({ value }, never)), JSON.stringify(value)).toBe(
        "source_invalid_query",
      );
    }
    expect(await codeOf(src.prepare({ path: "/orders/{value}" }).run({ value: null }, never))).toBe(
      "source_invalid_query",
    );
  });

  it("refuses templates with a fragment, a placeholder query key or a stray brace", () => {
    expect(() => compileHttpPath("/a#b")).toThrow(/fragment/);
    expect(() => compileHttpPath("/a?{k}=1")).toThrow(/query key/);
    expect(() => compileHttpPath("/a/{value")).toThrow(/placeholder/);
    expect(() => compileHttpPath("a/{value}")).toThrow(/start with/);
  });

  describe("fault matrix (each with its code; no header value in any message)", () => {
    const cases: [string, string, Record<string, unknown>?][] = [
      ["/status/500", "source_server_error"],
      ["/status/503", "source_server_error"],
      ["/status/429", "source_server_error"],
      ["/status/400", "source_invalid_query"],
      ["/status/403", "source_auth_failed"],
      ["/status/504", "source_timeout"],
      ["/text", "source_malformed_response"],
      ["/bad-json", "source_malformed_response"],
      ["/bad-utf8", "source_malformed_response"],
      ["/scalar", "source_malformed_response"],
      ["/mixed", "source_malformed_response"],
      ["/big", "source_malformed_response", { max_bytes: 100_000 }],
      ["/orders/1001", "source_malformed_response", { max_bytes: 10 }],
    ];
    for (const [path, code, config] of cases) {
      it(`${path} → ${code}`, async () => {
        const s = config ? await make(config) : src;
        const err = await s
          .prepare({ path })
          .run({}, never)
          .catch((e: Error) => e);
        expect((err as { code?: string }).code).toBe(code);
        expect((err as Error).message).not.toContain(SECRET);
      });
    }

    it("authentication failure: a wrong token gives source_auth_failed; the right one passes", async () => {
      expect((await src.prepare({ path: "/auth" }).run({}, never)).rows).toEqual([{ ok: 1 }]);
      const wrong = await make({ headers: { Authorization: "Bearer wrong-secret" } });
      const err = await wrong
        .prepare({ path: "/auth" })
        .run({}, never)
        .catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe("source_auth_failed");
      expect((err as Error).message).not.toContain("wrong-secret");
    });

    it("timeout: the AbortSignal ends a request the server never answers", async () => {
      const ac = new AbortController();
      const p = src.prepare({ path: "/slow" }).run({}, ac.signal);
      setTimeout(() => ac.abort(), 50);
      expect(await codeOf(p)).toBe("source_timeout");
    });

    it("connection refused: a closed port gives source_unreachable", async () => {
      const port = await closedPort();
      const s = await createHttpSource({
        name: "x",
        config: { base_url: `http://127.0.0.1:${port}`, headers: { Authorization: SECRET } },
        baseDir: "/",
      });
      const err = await s
        .prepare({ path: "/orders/{value}" })
        .run({ value: 1 }, never)
        .catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe("source_unreachable");
      expect((err as Error).message).not.toContain(SECRET);
    });

    it("malformed response: a server that does not speak http gives source_malformed_response", async () => {
      const g = await startGarbageHttp();
      try {
        const s = await createHttpSource({ name: "x", config: { base_url: g.base }, baseDir: "/" });
        expect(await codeOf(s.prepare({ path: "/orders/1" }).run({}, never))).toBe("source_malformed_response");
      } finally {
        await g.close();
      }
    });
  });
});
