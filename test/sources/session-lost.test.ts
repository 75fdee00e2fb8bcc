// A database session the server ends while a check holds it (a DBA's kill, a failover, a restart,
// an idle timeout) is `source_unreachable` for that request, then the retry, then `on_error`; the
// process keeps running. Against the real servers: the check waits on a lock a second connection
// holds, so the test knows its session is mid-query without timing anything, and terminates it
// (pg_terminate_backend, MariaDB's KILL). Idle pooled sessions are killed between two checks with
// the event loop blocked, so the pool hands the dead session out before it can notice.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../src/checks/decision.js";
import { parsePolicy } from "../../src/checks/load.js";
import { createGate } from "../../src/gate.js";
import { createMysqlSource } from "../../src/sources/mysql.js";
import { createPostgresSource } from "../../src/sources/postgres.js";
import { codeOf, MYSQL_URL, mysqlReachable, never, PG_URL, pgReachable } from "./live.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist/cli/main.js");
const PG_T = "tessera_src_pg_lost";
const MY_T = "tessera_src_my_lost";
const pgLive = await pgReachable();
const myLive = await mysqlReachable();

/** A policy grounding `order_id` in `table` of one SQL source; `retry` as given. */
function policy(kind: "postgres" | "mysql", table: string, retry: { attempts: number; on_error: string }): string {
  return JSON.stringify({
    version: 1,
    sources: {
      billing: {
        kind,
        url: kind === "postgres" ? "${TESSERA_PG_URL}" : "${TESSERA_MYSQL_URL}",
        timeout_ms: 30000,
        pool_size: 1,
      },
    },
    defaults: { unlisted_tools: "block" },
    tools: {
      refund_order: {
        arguments: {
          order_id: {
            ground: {
              checks: [
                {
                  source: "billing",
                  query: `SELECT status FROM ${table} WHERE order_id = %(value)s`,
                  match: [{ column: "status", value: "delivered" }],
                  retry,
                },
              ],
            },
          },
        },
      },
    },
  });
}

const env = { TESSERA_PG_URL: PG_URL, TESSERA_MYSQL_URL: MYSQL_URL };
const call = { tool: "refund_order", arguments: { order_id: 1001 } };
const summary = (d: Decision) =>
  d.checks.map((c) => ({ status: c.status, outcome: c.outcome, attempts: c.attempts, code: c.error?.code }));

/** Run a short script in another process and wait for it: the event loop of this one stays blocked. */
function blocking(script: string): void {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) throw new Error(`helper failed: ${r.stderr}`);
}

/** `tessera check --json` in a child process; resolves with its exit code and stdout. */
function cli(policyFile: string): { done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const dir = mkdtempSync(join(tmpdir(), "tessera-lost-"));
  const callFile = join(dir, "call.json");
  writeFileSync(callFile, JSON.stringify(call));
  const child = spawn(process.execPath, [MAIN, "check", "--policy", policyFile, "--call", callFile, "--json"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return { done: new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr }))) };
}

function writePolicy(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "tessera-lost-policy-")), "policy.json");
  writeFileSync(file, text);
  return file;
}

describe.skipIf(!pgLive)("postgres: a session the server ends mid-check (live)", () => {
  const admin = new pg.Client({ connectionString: PG_URL });
  const locker = new pg.Client({ connectionString: PG_URL });

  beforeAll(async () => {
    await admin.connect();
    await locker.connect();
    await admin.query(`CREATE TABLE IF NOT EXISTS ${PG_T} (order_id int PRIMARY KEY, status text NOT NULL)`);
    await admin.query(`INSERT INTO ${PG_T} VALUES (1001, 'delivered') ON CONFLICT (order_id) DO NOTHING`);
  });
  afterAll(async () => {
    await locker.end().catch(() => undefined);
    await admin.end().catch(() => undefined);
  });

  /** Hold an exclusive lock on the table; the check's SELECT waits for it. */
  async function lock(): Promise<void> {
    await locker.query("BEGIN");
    await locker.query(`LOCK TABLE ${PG_T} IN ACCESS EXCLUSIVE MODE`);
  }
  const unlock = () => locker.query("ROLLBACK");

  /** Wait until a check's session waits on the lock, then terminate it and wait until it is gone. */
  async function terminateWaiter(): Promise<void> {
    for (;;) {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tessera'
           AND wait_event_type = 'Lock' AND query LIKE '%${PG_T}%'`,
      );
      if (rows.length > 0) {
        for (const { pid } of rows) await admin.query("SELECT pg_terminate_backend($1, 10000)", [pid]);
        return;
      }
      await new Promise((r) => setImmediate(r));
    }
  }

  it("a library host: the retry runs after source_unreachable, and the process survives", async () => {
    const gate = createGate(
      parsePolicy(policy("postgres", PG_T, { attempts: 1, on_error: "block" }), "p.json", { env }),
    );
    try {
      await lock();
      const decided = gate.check(call, {});
      await terminateWaiter();
      await unlock();
      const d = await decided;
      expect([d.decision, summary(d)]).toEqual([
        "allow",
        [{ status: "matched", outcome: "allow", attempts: 2, code: undefined }],
      ]);
    } finally {
      await gate.close();
    }
  });

  it("without a retry the failure is source_unreachable, then on_error", async () => {
    const gate = createGate(
      parsePolicy(policy("postgres", PG_T, { attempts: 0, on_error: "hold" }), "p.json", { env }),
    );
    try {
      await lock();
      const decided = gate.check(call, {});
      await terminateWaiter();
      await unlock();
      const d = await decided;
      expect([d.decision, summary(d)]).toEqual([
        "hold",
        [{ status: "error", outcome: "hold", attempts: 1, code: "source_unreachable" }],
      ]);
      // the pool recovers: the next check gets a new session
      expect((await gate.check(call, {})).decision).toBe("allow");
    } finally {
      await gate.close();
    }
  });

  it("tessera check: the process answers with the decision instead of crashing", async () => {
    await lock();
    const run = cli(writePolicy(policy("postgres", PG_T, { attempts: 0, on_error: "hold" })));
    await terminateWaiter();
    await unlock();
    const { code, stdout, stderr } = await run.done;
    expect(stderr).toBe("");
    expect(code).toBe(3);
    expect(summary(JSON.parse(stdout) as Decision)).toEqual([
      { status: "error", outcome: "hold", attempts: 1, code: "source_unreachable" },
    ]);
  });

  it("an idle pooled session killed between checks: the next request is source_unreachable, the one after reconnects", async () => {
    const src = await createPostgresSource({ name: "billing", config: { url: PG_URL, pool_size: 1 }, baseDir: "/" });
    try {
      const q = src.prepare({ query: `SELECT pg_backend_pid() AS sid FROM ${PG_T} WHERE order_id = %(value)s` });
      const sid = Number((await q.run({ value: 1001 }, never)).rows[0]?.sid);
      blocking(`
        import pg from "pg";
        const c = new pg.Client({ connectionString: process.env.TESSERA_PG_URL });
        await c.connect();
        const { rows } = await c.query("SELECT pg_terminate_backend(${sid}, 10000) AS done");
        await c.end();
        if (rows[0].done !== true) process.exit(1);`);
      expect(await codeOf(q.run({ value: 1001 }, never))).toBe("source_unreachable");
      const again = Number((await q.run({ value: 1001 }, never)).rows[0]?.sid);
      expect(again).not.toBe(sid);
    } finally {
      await src.close();
    }
  });
});

describe.skipIf(!myLive)("mariadb: a session the server ends mid-check (live)", () => {
  let admin: mysql.Connection;
  let locker: mysql.Connection;

  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: MYSQL_URL });
    locker = await mysql.createConnection({ uri: MYSQL_URL });
    await admin.query(`CREATE TABLE IF NOT EXISTS ${MY_T} (order_id INT PRIMARY KEY, status VARCHAR(20) NOT NULL)`);
    await admin.query(`INSERT IGNORE INTO ${MY_T} VALUES (1001, 'delivered')`);
  });
  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await admin?.end().catch(() => undefined);
  });

  const lock = () => locker.query(`LOCK TABLES ${MY_T} WRITE`);
  const unlock = () => locker.query("UNLOCK TABLES");

  /** Wait until a check's session waits on the table lock, then KILL it. */
  async function killWaiter(): Promise<void> {
    for (;;) {
      const [rows] = await admin.query<mysql.RowDataPacket[]>(
        `SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()
           AND state LIKE 'Waiting for table%' AND info LIKE '%${MY_T}%'`,
      );
      if (rows.length > 0) {
        for (const r of rows) await admin.query(`KILL ${Number(r.id)}`);
        return;
      }
      await new Promise((r) => setImmediate(r));
    }
  }

  it("a library host: the retry runs after source_unreachable", async () => {
    const gate = createGate(parsePolicy(policy("mysql", MY_T, { attempts: 1, on_error: "block" }), "p.json", { env }));
    try {
      await lock();
      const decided = gate.check(call, {});
      await killWaiter();
      await unlock();
      const d = await decided;
      expect([d.decision, summary(d)]).toEqual([
        "allow",
        [{ status: "matched", outcome: "allow", attempts: 2, code: undefined }],
      ]);
    } finally {
      await gate.close();
    }
  });

  it("tessera check: without a retry the failure is source_unreachable, then on_error", async () => {
    await lock();
    const run = cli(writePolicy(policy("mysql", MY_T, { attempts: 0, on_error: "hold" })));
    await killWaiter();
    await unlock();
    const { code, stdout, stderr } = await run.done;
    expect(stderr).toBe("");
    expect(code).toBe(3);
    expect(summary(JSON.parse(stdout) as Decision)).toEqual([
      { status: "error", outcome: "hold", attempts: 1, code: "source_unreachable" },
    ]);
  });

  it("an idle pooled session killed between checks: the next request is source_unreachable, the one after reconnects", async () => {
    const src = await createMysqlSource({ name: "billing", config: { url: MYSQL_URL, pool_size: 1 }, baseDir: "/" });
    try {
      const q = src.prepare({ query: `SELECT CONNECTION_ID() AS sid FROM ${MY_T} WHERE order_id = %(value)s` });
      const sid = Number((await q.run({ value: 1001 }, never)).rows[0]?.sid);
      blocking(`
        import mysql from "mysql2/promise";
        const c = await mysql.createConnection({ uri: process.env.TESSERA_MYSQL_URL });
        await c.query("KILL ${sid}");
        for (;;) {
          const [left] = await c.query("SELECT count(*) AS n FROM information_schema.processlist WHERE id = ${sid}");
          if (Number(left[0].n) === 0) break;
        }
        await c.end();`);
      expect(await codeOf(q.run({ value: 1001 }, never))).toBe("source_unreachable");
      const again = Number((await q.run({ value: 1001 }, never)).rows[0]?.sid);
      expect(again).not.toBe(sid);
    } finally {
      await src.close();
    }
  });
});
