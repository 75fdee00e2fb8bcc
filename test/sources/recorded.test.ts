// Recorded fixtures: record live HTTP and MCP answers, close the servers, and replay the same
// decisions offline through createGate's openSource.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../src/checks/decision.js";
import { parsePolicy } from "../../src/checks/load.js";
import type { Source } from "../../src/checks/source.js";
import { createGate, registryOpener } from "../../src/gate.js";
import {
  createRecordedSource,
  loadRecording,
  recordedOpener,
  recordingSource,
  type RecordingFile,
} from "../../src/sources/recorded.js";
import { type Order, startOrdersServer, type TestServer } from "./http-server.js";
import { codeOf, never } from "./live.js";
import { FIXTURE_DIR } from "./mcp-fixture.js";

const ORDERS: Order[] = [
  { order_id: 1001, customer_id: "c-1", status: "delivered", amount_cents: 1500 },
  { order_id: 1002, customer_id: "c-2", status: "refunded", amount_cents: 900 },
];

describe("record live, replay offline", () => {
  let dir: string;
  let server: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-rec-"));
    server = await startOrdersServer(ORDERS);
  });
  afterAll(async () => {
    await server?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it("the same decisions, with the servers gone", async () => {
    const policyText = JSON.stringify({
      version: 1,
      sources: {
        api: { kind: "http", base_url: server.base },
        refunds: { kind: "http", base_url: server.base, rows: "items" },
        orders: { kind: "mcp", command: process.execPath, args: [join(FIXTURE_DIR, "mcp-orders-server.mjs")] },
      },
      tools: {
        refund_order: {
          arguments: {
            order_id: {
              ground: {
                checks: [
                  {
                    source: "api",
                    path: "/orders/{value}",
                    match: [
                      { column: "customer_id", ctx: "customer_id" },
                      { column: "status", value: "delivered" },
                    ],
                  },
                  { source: "refunds", path: "/refunds?order_id={value}", match: [{ rows: "eq", value: 0 }] },
                  {
                    source: "orders",
                    tool: "get_order",
                    arguments: { order_id: "{value}" },
                    match: [{ column: "customer_id", ctx: "customer_id" }],
                  },
                  {
                    source: "orders",
                    tool: "fail",
                    arguments: { note: "order {value}" },
                    match: [{ rows: "gte", value: 0 }],
                    retry: { attempts: 0, on_error: "hold" },
                  },
                ],
              },
            },
          },
        },
      },
    });
    const policy = parsePolicy(policyText, join(dir, "policy.yaml"));
    const recorders = new Map<string, ReturnType<typeof recordingSource>>();
    const live = registryOpener(policy);
    const gate = createGate(policy, {
      openSource: async (name, config) => {
        const r = recordingSource(await live(name, config), config.kind as "http" | "mcp");
        recorders.set(name, r);
        return r.source;
      },
    });
    const calls: [unknown, string][] = [
      [1001, "c-1"],
      [1001, "c-2"],
      [1002, "c-2"],
      [4242, "c-1"],
      ["1001", "c-1"],
    ];
    const liveDecisions: Decision[] = [];
    for (const [order_id, customer_id] of calls)
      liveDecisions.push(await gate.check({ tool: "refund_order", arguments: { order_id } }, { customer_id }));
    await gate.close();
    await server.close();

    const files: Record<string, string> = {};
    for (const [name, r] of recorders) {
      files[name] = `${name}.recorded.json`;
      writeFileSync(join(dir, files[name]!), JSON.stringify(r.file(), null, 2));
    }
    const offline = createGate(policy, { openSource: recordedOpener(files, dir) });
    try {
      for (const [k, [order_id, customer_id]] of calls.entries()) {
        expect(await offline.check({ tool: "refund_order", arguments: { order_id } }, { customer_id })).toEqual(
          liveDecisions[k],
        );
      }
      expect(liveDecisions.map((d) => d.decision)).toEqual(["hold", "block", "block", "block", "hold"]);
      // a request nobody recorded never yields rows
      const unrecorded = await offline.check(
        { tool: "refund_order", arguments: { order_id: 9999 } },
        { customer_id: "c-1" },
      );
      expect(unrecorded.checks.map((c) => c.error?.code ?? c.status)).toEqual([
        "source_unreachable",
        "source_unreachable",
        "source_unreachable",
        "source_unreachable",
      ]);
    } finally {
      await offline.close();
    }
    const http = await loadRecording(join(dir, "api.recorded.json"));
    expect(http.records.map((r) => r.request)).toEqual([
      { path: "/orders/1001" },
      { path: "/orders/1002" },
      { path: "/orders/4242" },
    ]);
  });
});

describe("recorded sources directly", () => {
  const file: RecordingFile = {
    version: 1,
    kind: "mcp",
    records: [
      { request: { tool: "get_order", arguments: { order_id: 1001 } }, rows: [{ customer_id: "c-1" }] },
      {
        request: { tool: "get_order", arguments: { order_id: 1002 } },
        error: { code: "source_timeout", message: "recorded timeout" },
      },
    ],
  };
  const src: Source = createRecordedSource("orders", file);
  const q = src.prepare({ tool: "get_order", arguments: { order_id: "{value}" } });

  it("binds like the live adapter: a typed whole placeholder; a string id is another request", async () => {
    expect(q.parameters).toEqual(["value"]);
    expect(await q.run({ value: 1001 }, never)).toEqual({ rows: [{ customer_id: "c-1" }] });
    expect(await codeOf(q.run({ value: "1001" }, never))).toBe("source_unreachable");
  });

  it("replays a recorded error with its code", async () => {
    expect(await codeOf(q.run({ value: 1002 }, never))).toBe("source_timeout");
  });

  it("rejects a malformed recording file with its JSON path", async () => {
    const d = mkdtempSync(join(tmpdir(), "tessera-rec-bad-"));
    try {
      writeFileSync(
        join(d, "bad.json"),
        JSON.stringify({
          version: 1,
          kind: "http",
          records: [{ request: { path: "/x" }, rows: [], error: { code: "source_timeout", message: "x" } }],
        }),
      );
      await expect(loadRecording(join(d, "bad.json"))).rejects.toThrow(
        /records\.0: a record needs exactly one of `rows` and `error`/,
      );
      writeFileSync(join(d, "kind.json"), JSON.stringify({ version: 1, kind: "ftp", records: [] }));
      await expect(loadRecording(join(d, "kind.json"))).rejects.toMatchObject({
        code: "recording_invalid",
        path: "kind",
      });
      // a recorded row naming a column twice would replay only one of its values
      writeFileSync(
        join(d, "dup.json"),
        '{"version": 1, "kind": "http", "records": [{"request": {"path": "/x"}, "rows": [{"status": "refunded", "status": "delivered"}]}]}',
      );
      await expect(loadRecording(join(d, "dup.json"))).rejects.toMatchObject({
        code: "recording_invalid",
        path: "records[0].rows[0]",
      });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
