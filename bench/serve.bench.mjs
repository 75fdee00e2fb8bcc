// `tessera serve` (issue 20): POST /v1/check over loopback keep-alive, against the OPA-style floor —
// a minimal node:http handler running the same two prepared statements, answering the same decision
// document and writing the same audit row (bench/serve-baseline.mjs) — and against `gate.check` in this process. The servers run as their own
// processes and this one is the client, so the pair uses the machine's two cores. Latency: one call
// at a time on one keep-alive connection, the two servers interleaved call by call in an order that
// changes every round; throughput: 8 calls in flight over 8 connections for a fixed number of
// calls, each server in turn. The calls are the §11 refund workload's allowed refunds of one
// customer (adr/0042). Target: the service's median at most 1.5× the handler's.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPolicy } from "../dist/checks/load.js";
import { createGate } from "../dist/gate.js";
import { figure, fmtNs, median, orderOf, printResult } from "./lib.mjs";
import { allowedRefundsOfOneCustomer, buildRefundWorkload } from "./refund-workload.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "tessera-serve-bench-"));
const ROUNDS = Number(process.env.SERVE_ROUNDS ?? 3000);
const THROUGHPUT_CALLS = Number(process.env.SERVE_CALLS ?? 6000);
const TOKEN = "bench-token-0123456789abcdef";

const { policyFile, dbFile } = buildRefundWorkload(dir, { orders: 100_000 });
const { customer_id, orderIds } = allowedRefundsOfOneCustomer(dbFile);
const bodyOf = (i) =>
  JSON.stringify({
    tool: "refund_order",
    arguments: { order_id: orderIds[i % orderIds.length] },
    context: { customer_id },
  });

function start(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? "", TESSERA_SERVE_TOKEN: TOKEN, TESSERA_POLICY_CACHE: "off" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) resolve({ child, url: new URL(m[1]) });
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

function client(url, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: "POST",
          path: "/v1/check",
          headers: {
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c) => (text += c));
          res.on("end", () =>
            res.statusCode === 200 && text.includes('"allow"')
              ? resolve()
              : reject(new Error(`${res.statusCode} ${text.slice(0, 200)}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
}

const serve = await start([
  join(root, "dist", "cli", "main.js"),
  "serve",
  "--policy",
  policyFile,
  "--store",
  join(dir, "store.db"),
  "--port",
  "0",
]);
const policy = await loadPolicy(policyFile);
const baseline = await start([
  join(root, "bench", "serve-baseline.mjs"),
  dbFile,
  join(dir, "baseline-audit.db"),
  policy.digest,
]);
const gate = createGate(policy);

try {
  // latency: one call at a time, one keep-alive connection each, interleaved
  const sides = [
    { name: "serve", send: client(serve.url, 1), times: [] },
    { name: "baseline", send: client(baseline.url, 1), times: [] },
    { name: "gate.check", send: (body) => gate.check(JSON.parse(body), { customer_id }), times: [] },
  ];
  for (let w = 0; w < 300; w++) for (const s of sides) await s.send(bodyOf(w));
  for (let r = 0; r < ROUNDS; r++) {
    for (const j of orderOf(r, sides.length)) {
      const s = sides[j];
      const body = bodyOf(r);
      const t0 = process.hrtime.bigint();
      await s.send(body);
      s.times.push(Number(process.hrtime.bigint() - t0));
    }
  }
  const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)];
  const [srv, base, inproc] = sides;
  const m = { serve: median(srv.times), baseline: median(base.times), gate: median(inproc.times) };
  const q = { serve: p99(srv.times), baseline: p99(base.times) };

  // throughput: 8 in flight over 8 connections
  async function throughput(url) {
    const send = client(url, 8);
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < THROUGHPUT_CALLS) await send(bodyOf(next++));
      }),
    );
    return THROUGHPUT_CALLS / (Number(process.hrtime.bigint() - t0) / 1e9);
  }
  await throughput(serve.url);
  await throughput(baseline.url);
  const tp = { serve: 0, baseline: 0 };
  for (let r = 0; r < 3; r++) {
    tp.serve = Math.max(tp.serve, await throughput(serve.url));
    tp.baseline = Math.max(tp.baseline, await throughput(baseline.url));
  }

  const result = {
    name: "serve",
    figures: [
      figure({
        figure: "POST /v1/check median latency, loopback keep-alive, one call at a time (100,000 orders)",
        value: m.serve,
        unit: "ns",
        limitName: "minimal node:http handler (same two statements, decision document and audit row)",
        limitValue: m.baseline,
        target: { ratio: 1.5 },
        peers: [{ name: "gate.check in process", value: m.gate }],
      }),
      figure({
        figure: "POST /v1/check p99 latency, one call at a time",
        value: q.serve,
        unit: "ns",
        limitName: "minimal node:http handler",
        limitValue: q.baseline,
      }),
      figure({
        figure: "POST /v1/check decisions/s, 8 in flight over 8 connections",
        value: tp.serve,
        unit: "decisions/s",
        limitName: "minimal node:http handler",
        limitValue: tp.baseline,
        higherIsBetter: true,
      }),
    ],
  };
  printResult(result);
  console.log(
    `serve median ${fmtNs(m.serve)} (p99 ${fmtNs(q.serve)}), handler ${fmtNs(m.baseline)} (p99 ${fmtNs(q.baseline)}), gate.check ${fmtNs(m.gate)}; ${tp.serve.toFixed(0)} vs ${tp.baseline.toFixed(0)} decisions/s`,
  );
  console.log(`RESULT ${JSON.stringify(result)}`);
} finally {
  await gate.close();
  serve.child.kill("SIGTERM");
  baseline.child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
