// Bounded concurrency and time, readiness while a required Source is down, and a graceful
// shutdown that answers the decisions in flight — each with an HTTP Source the test holds open.
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/checks/load.js";
import { check, request, runCli, serveInProcess, startServeProcess, TOKEN, tempDir } from "./harness.js";
import { type SlowSource, startSlowSource, writeSlowPolicy } from "./slow-source.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(options: { maxConcurrent?: number; deadlineMs?: number } = {}) {
  const t = tempDir("tessera-serve-limits");
  const source = await startSlowSource();
  const policy = await loadPolicy(writeSlowPolicy(t.dir, source.port));
  const serving = await serveInProcess(policy, { store: join(t.dir, "s.db"), ...options });
  cleanups.push(
    t.cleanup,
    () => source.close(),
    () => serving.close(),
    () => source.release(),
  );
  return { t, source, serving };
}

describe("bounds", () => {
  it("answers 503 overloaded with Retry-After past --max-concurrent, and the admitted calls still decide", async () => {
    const { source, serving } = await setUp({ maxConcurrent: 2 });
    const first = [
      check(serving.url, { tool: "slow", arguments: { id: 1 } }),
      check(serving.url, { tool: "slow", arguments: { id: 2 } }),
    ];
    await source.arrived(2);
    const third = await check(serving.url, { tool: "slow", arguments: { id: 3 } });
    expect(third.status).toBe(503);
    expect(third.headers.get("retry-after")).toBe("1");
    expect((third.json as { error: { code: string } }).error.code).toBe("overloaded");
    // health and readiness are not counted against the limit
    expect((await request(serving.url, "GET", "/healthz", { token: null })).status).toBe(200);
    source.release();
    const done = await Promise.all(first);
    expect(done.map((d) => [d.status, (d.json as { decision: string }).decision])).toEqual([
      [200, "allow"],
      [200, "allow"],
    ]);
  });

  it("answers 503 deadline_exceeded for a request past --deadline, never a decision", async () => {
    const { serving } = await setUp({ deadlineMs: 300 });
    const late = await check(serving.url, { tool: "slow", arguments: { id: 1 } });
    expect(late.status).toBe(503);
    expect(late.json).toEqual({
      error: { code: "deadline_exceeded", message: "(service): the request did not finish within 300 ms" },
    });
  });
});

/** Send `head` and one byte of a body that never ends; resolve with what came back once the server closed the connection. */
function stalledBody(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${head}\r\n\r\n{`));
    let got = "";
    socket.on("data", (d: Buffer) => (got += d.toString()));
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
  });
}

describe("a body that never ends", () => {
  it("is cut off at the deadline, its connection closed and its slot freed, so the next call is decided", async () => {
    const { serving } = await setUp({ maxConcurrent: 1, deadlineMs: 300 });
    const head = [
      "POST /v1/check HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${TOKEN}`,
      "Content-Type: application/json",
      "Content-Length: 100",
    ].join("\r\n");
    for (let round = 0; round < 3; round++) {
      const answered = await stalledBody(serving.url, head);
      expect(answered).toMatch(/^HTTP\/1\.1 503 /);
      expect(answered).toContain('"code":"deadline_exceeded"');
      expect(answered.toLowerCase()).toContain("connection: close");
    }
    // the one slot is free again: an unlisted tool is decided (block), not refused as overloaded
    const next = await check(serving.url, { tool: "unlisted" });
    expect([next.status, (next.json as { decision: string }).decision]).toEqual([200, "block"]);
  });
});

describe("readiness", () => {
  it("fails while a required Source is unreachable, names it, and recovers when it answers", async () => {
    const t = tempDir("tessera-serve-ready");
    cleanups.push(t.cleanup);
    let source: SlowSource = await startSlowSource();
    const port = source.port;
    await source.close(); // down before the service starts
    const policy = await loadPolicy(writeSlowPolicy(t.dir, port));
    const serving = await startServeProcess([
      "--policy",
      policy.file,
      "--store",
      join(t.dir, "s.db"),
      "--probe-interval",
      "50ms",
    ]);
    cleanups.push(async () => {
      serving.child.kill("SIGTERM");
      await serving.exited;
    });
    const down = await request(serving.url, "GET", "/readyz", { token: null });
    expect(down.status).toBe(503);
    // `unused` is named by no check: it is not required, and not probed
    expect(down.json).toEqual({
      status: "not_ready",
      draining: false,
      sources: [{ name: "api", kind: "http", ready: false, code: "source_unreachable" }],
    });
    expect((await request(serving.url, "GET", "/healthz", { token: null })).status).toBe(200);
    source = await startSlowSource(port);
    cleanups.push(() => source.close());
    let ready = down;
    while (ready.status !== 200) ready = await request(serving.url, "GET", "/readyz", { token: null });
    expect(ready.json).toEqual({
      status: "ready",
      draining: false,
      sources: [{ name: "api", kind: "http", ready: true, code: null }],
    });
  });
});

describe("shutdown", () => {
  it("on SIGTERM finishes the decision in flight, audits it, answers it, then exits 0", async () => {
    const t = tempDir("tessera-serve-term");
    const source = await startSlowSource();
    cleanups.push(t.cleanup, () => source.close());
    const store = join(t.dir, "s.db");
    const p = await startServeProcess(["--policy", writeSlowPolicy(t.dir, source.port), "--store", store]);
    const inFlight = check(p.url, { tool: "slow", arguments: { id: 7 } });
    await source.arrived(1);
    p.child.kill("SIGTERM");
    await new Promise<void>((resolve) => {
      const wait = () => (p.stderr().includes("shutting down") ? resolve() : setImmediate(wait));
      wait();
    });
    // a new connection is no longer accepted
    await expect(check(p.url, { tool: "slow", arguments: { id: 8 } })).rejects.toThrow();
    source.release();
    const answered = await inFlight;
    expect([answered.status, (answered.json as { decision: string }).decision]).toEqual([200, "allow"]);
    expect(answered.headers.get("connection")).toBe("close");
    expect(await p.exited).toBe(0);
    const audit = await runCli(["audit", "export", "--jsonl", "--store", store]);
    const ids = audit.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { call_id?: string }).call_id);
    expect(ids).toEqual([answered.headers.get("tessera-call-id")]);
  });
});
