// The fault matrix through createGate: every adapter's failures carry their code, are retried
// `retry.attempts` times (attempts: 2 → three requests), then end as each `on_error` outcome.
import pg from "pg";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy } from "../../src/checks/load.js";
import { createGate } from "../../src/gate.js";
import type { Gate } from "../../src/checks/engine.js";
import { startGarbageHttp, startOrdersServer, type TestServer } from "./http-server.js";
import { closedPort, garbageServer, MYSQL_URL, mysqlReachable, PG_URL, pgReachable } from "./live.js";
import { FIXTURE_DIR, startMcpHttp } from "./mcp-fixture.js";

type Fault = { name: string; source: string; request: Record<string, unknown> };

/** A policy with one tool per fault; each tool grounds three arguments, one per `on_error`. */
function policyYaml(sources: Record<string, Record<string, unknown>>, faults: Fault[]): string {
  const tools: Record<string, unknown> = {};
  for (const f of faults) {
    const args: Record<string, unknown> = {};
    for (const onError of ["block", "hold", "allow"]) {
      args[`on_${onError}`] = {
        ground: {
          checks: [
            {
              source: f.source,
              ...f.request,
              match: [{ rows: "gte", value: 0 }],
              retry: { attempts: 2, on_error: onError },
            },
          ],
        },
      };
    }
    tools[f.name] = { arguments: args };
  }
  return JSON.stringify({ version: 1, sources, tools });
}

const FAULT_CODES: Readonly<Record<string, string>> = {
  timeout: "source_timeout",
  auth: "source_auth_failed",
  server: "source_server_error",
  invalid: "source_invalid_query",
  refused: "source_unreachable",
  malformed: "source_malformed_response",
  tool: "source_tool_error",
};

/** Decide each fault's tool and compare every check with the code, three attempts and its on_error outcome. */
async function expectMatrix(gate: Gate, names: string[]): Promise<void> {
  for (const name of names) {
    const f = { name, code: FAULT_CODES[name]! };
    const d = await gate.check({ tool: f.name, arguments: { on_block: 1, on_hold: 1, on_allow: 1 } }, {});
    const got = d.checks.map((c) => ({
      argument: c.argument,
      status: c.status,
      outcome: c.outcome,
      attempts: c.attempts,
      code: c.error?.code,
    }));
    expect(got, f.name).toEqual(
      ["block", "hold", "allow"].map((o) => ({
        argument: `on_${o}`,
        status: "error",
        outcome: o,
        attempts: 3,
        code: f.code,
      })),
    );
    expect(d.decision, f.name).toBe("block");
  }
}

function gateOf(yaml: string): Gate {
  return createGate(parsePolicy(yaml, `${FIXTURE_DIR}gate-faults.policy.yaml`));
}

const pgLive = await pgReachable();
const myLive = await mysqlReachable();

describe.skipIf(!pgLive)("postgres through the gate", () => {
  let gate: Gate;
  let garbage: Awaited<ReturnType<typeof garbageServer>>;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(
      `CREATE OR REPLACE FUNCTION tessera_src_gate_fail() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'internal failure'; END $$`,
    );
    await admin.end();
    garbage = await garbageServer();
    const base = new URL(PG_URL);
    const at = (port: number) => {
      const u = new URL(PG_URL);
      u.port = String(port);
      return u.toString();
    };
    const badUser = new URL(PG_URL);
    badUser.username = "tessera_no_such_role";
    const sources = {
      db: { kind: "postgres", url: base.toString(), timeout_ms: 2000 },
      slow: { kind: "postgres", url: base.toString(), timeout_ms: 100 },
      badauth: { kind: "postgres", url: badUser.toString() },
      refused: { kind: "postgres", url: at(await closedPort()) },
      garbage: { kind: "postgres", url: at(garbage.port), timeout_ms: 500 },
    };
    const q = (query: string) => ({ query });
    gate = gateOf(
      policyYaml(sources, [
        { name: "timeout", source: "slow", request: q("SELECT pg_sleep(1) AS s WHERE %(value)s::int = 1") },
        { name: "auth", source: "badauth", request: q("SELECT %(value)s::int AS v") },
        { name: "server", source: "db", request: q("SELECT tessera_src_gate_fail() AS f WHERE %(value)s::int = 1") },
        { name: "invalid", source: "db", request: q("SELECT * FROM tessera_no_such_table WHERE a = %(value)s") },
        { name: "refused", source: "refused", request: q("SELECT %(value)s::int AS v") },
        { name: "malformed", source: "garbage", request: q("SELECT %(value)s::int AS v") },
      ]),
    );
  });
  afterAll(async () => {
    await gate?.close();
    await garbage?.close();
  });
  it("each fault: its code, three requests, each on_error outcome", async () => {
    await expectMatrix(gate, ["timeout", "auth", "server", "invalid", "refused", "malformed"]);
  });
});

describe.skipIf(!myLive)("mysql through the gate", () => {
  let gate: Gate;
  let garbage: Awaited<ReturnType<typeof garbageServer>>;
  beforeAll(async () => {
    const admin = await mysql.createConnection({ uri: MYSQL_URL });
    await admin.query("DROP FUNCTION IF EXISTS tessera_src_gate_fail");
    await admin.query(
      "CREATE FUNCTION tessera_src_gate_fail() RETURNS INT DETERMINISTIC BEGIN SIGNAL SQLSTATE 'HY000' SET MESSAGE_TEXT = 'internal failure', MYSQL_ERRNO = 1105; RETURN 1; END",
    );
    await admin.end();
    garbage = await garbageServer(true);
    const at = (port: number) => {
      const u = new URL(MYSQL_URL);
      u.port = String(port);
      return u.toString();
    };
    const badPass = new URL(MYSQL_URL);
    badPass.password = "tessera-wrong-password";
    const sources = {
      db: { kind: "mysql", url: MYSQL_URL, timeout_ms: 2000 },
      slow: { kind: "mysql", url: MYSQL_URL, timeout_ms: 100 },
      badauth: { kind: "mysql", url: badPass.toString() },
      refused: { kind: "mysql", url: at(await closedPort()) },
      garbage: { kind: "mysql", url: at(garbage.port), timeout_ms: 500 },
    };
    const q = (query: string) => ({ query });
    gate = gateOf(
      policyYaml(sources, [
        { name: "timeout", source: "slow", request: q("SELECT SLEEP(1) AS s FROM DUAL WHERE %(value)s = 1") },
        { name: "auth", source: "badauth", request: q("SELECT %(value)s AS v") },
        {
          name: "server",
          source: "db",
          request: q("SELECT tessera_src_gate_fail() AS f FROM DUAL WHERE %(value)s = 1"),
        },
        { name: "invalid", source: "db", request: q("SELECT * FROM tessera_no_such_table WHERE a = %(value)s") },
        { name: "refused", source: "refused", request: q("SELECT %(value)s AS v") },
        { name: "malformed", source: "garbage", request: q("SELECT %(value)s AS v") },
      ]),
    );
  });
  afterAll(async () => {
    await gate?.close();
    await garbage?.close();
  });
  it("each fault: its code, three requests, each on_error outcome", async () => {
    await expectMatrix(gate, ["timeout", "auth", "server", "invalid", "refused", "malformed"]);
  });
});

describe("http through the gate", () => {
  let gate: Gate;
  let server: TestServer;
  let garbage: TestServer;
  beforeAll(async () => {
    server = await startOrdersServer([]);
    garbage = await startGarbageHttp();
    const sources = {
      api: { kind: "http", base_url: server.base, headers: { Authorization: "Bearer s3cret-token" }, timeout_ms: 2000 },
      slow: { kind: "http", base_url: server.base, timeout_ms: 100 },
      badauth: { kind: "http", base_url: server.base, headers: { Authorization: "Bearer nope" } },
      refused: { kind: "http", base_url: `http://127.0.0.1:${await closedPort()}` },
      garbage: { kind: "http", base_url: garbage.base },
    };
    const p = (path: string) => ({ path });
    gate = gateOf(
      policyYaml(sources, [
        { name: "timeout", source: "slow", request: p("/slow?v={value}") },
        { name: "auth", source: "badauth", request: p("/auth?v={value}") },
        { name: "server", source: "api", request: p("/status/500?v={value}") },
        { name: "invalid", source: "api", request: p("/status/400?v={value}") },
        { name: "refused", source: "refused", request: p("/orders/{value}") },
        { name: "malformed", source: "api", request: p("/bad-json?v={value}") },
      ]),
    );
  });
  afterAll(async () => {
    await gate?.close();
    await server?.close();
    await garbage?.close();
  });
  it("each fault: its code, three requests (counted by the server), each on_error outcome", async () => {
    await expectMatrix(gate, ["timeout", "auth", "server", "invalid", "refused", "malformed"]);
    for (const route of ["/slow", "/auth", "/status/500", "/status/400", "/bad-json"]) {
      expect(server.seen.filter((t) => t.startsWith(`${route}?`)).length, route).toBe(9);
    }
  });
});

describe("a ${VAR} header secret never reaches a decision", () => {
  it("auth failure, server error, refused redirect and bad json: the token appears nowhere in the decision JSON", async () => {
    const other = await startOrdersServer([]);
    const server = await startOrdersServer([], other.base);
    const secret = "tok-7f3a9c-never-print-me";
    const yaml = `version: 1
sources:
  api: { kind: http, base_url: "${server.base}", headers: { Authorization: "Bearer \${API_TOKEN}" } }
tools:
  t:
    arguments:
      a: { ground: { checks: [ { source: api, path: "/auth?x={value}", match: [ { column: ok, value: 1 } ] } ] } }
      b: { ground: { checks: [ { source: api, path: "/status/500?x={value}", match: [ { rows: eq, value: 0 } ] } ] } }
      c: { ground: { checks: [ { source: api, path: "/redirect-other?x={value}", match: [ { rows: eq, value: 0 } ] } ] } }
      d: { ground: { checks: [ { source: api, path: "/bad-json?x={value}", match: [ { rows: eq, value: 0 } ] } ] } }
`;
    const wrong = createGate(parsePolicy(yaml, `${FIXTURE_DIR}p.yaml`, { env: { API_TOKEN: secret } }));
    try {
      const d = await wrong.check({ tool: "t", arguments: { a: 1, b: 1, c: 1, d: 1 } }, {}, { explain: "values" });
      expect(d.checks.map((c) => c.error?.code ?? c.status)).toEqual([
        "source_auth_failed",
        "source_server_error",
        "source_server_error",
        "source_malformed_response",
      ]);
      expect(JSON.stringify(d)).not.toContain(secret.slice(4));
      // the other origin never saw the request, so never saw the header
      expect(other.seen).toEqual([]);
    } finally {
      await wrong.close();
      await server.close();
      await other.close();
    }
  });
});

describe("mcp through the gate", () => {
  let gate: Gate;
  let http: Awaited<ReturnType<typeof startMcpHttp>>;
  beforeAll(async () => {
    http = await startMcpHttp({ MCP_TOKEN: "mcp-s3cret" });
    const stdio = { kind: "mcp", command: process.execPath, args: ["mcp-orders-server.mjs"] };
    const sources = {
      mcp: { ...stdio, timeout_ms: 3000 },
      slow: { ...stdio, timeout_ms: 150 },
      badauth: { kind: "mcp", url: http.url, headers: { Authorization: "Bearer nope" } },
      refused: { kind: "mcp", url: `http://127.0.0.1:${await closedPort()}/mcp` },
    };
    const t = (tool: string) => ({ tool, arguments: { order_id: "{value}" } });
    gate = gateOf(
      policyYaml(sources, [
        { name: "timeout", source: "slow", request: t("slow") },
        { name: "auth", source: "badauth", request: t("pid") },
        { name: "server", source: "mcp", request: t("boom") },
        { name: "invalid", source: "mcp", request: t("no_such_tool") },
        { name: "refused", source: "refused", request: t("pid") },
        { name: "malformed", source: "mcp", request: t("bad_text") },
        { name: "tool", source: "mcp", request: t("fail") },
      ]).replace(
        '"tools":{',
        '"tools":{"count":{"arguments":{"name":{"ground":{"checks":[{"source":"mcp","tool":"calls","arguments":{"name":"{value}"},"match":[{"column":"count","value":9}]}]}}}},',
      ),
    );
  });
  afterAll(async () => {
    await gate?.close();
    await http?.close();
  });
  it("each fault: its code, three requests (counted by the server), each on_error outcome", async () => {
    await expectMatrix(gate, ["timeout", "auth", "server", "invalid", "refused", "malformed", "tool"]);
    for (const tool of ["fail", "boom", "bad_text"]) {
      const d = await gate.check({ tool: "count", arguments: { name: tool } }, {});
      expect(d.decision, tool).toBe("allow");
    }
  });
});
