// bench/gateway-concurrency (issue 21): the latency and throughput of `tools/call` through
// `tessera gateway` (grounded against the refund workload of gateway.bench.mjs, audited, forwarded)
// against the same calls straight to the upstream, with 1, 8 and 32 calls in flight (closed loop:
// each of n workers sends its next call when the last is answered). Both sides run in alternation,
// round by round, in one process. The added median at n is the gateway's median latency minus the
// direct median at n. Target: the added median at 32 in flight at most 2× the added median at 1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { figure, fmtNs, median, orderOf, printResult } from "./lib.mjs";
import { allowedRefundsOfOneCustomer, buildRefundWorkload } from "./refund-workload.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const upstreamScript = join(root, "test", "fixtures", "upstream-counter-server.mjs");
const dir = mkdtempSync(join(tmpdir(), "tessera-gateway-concurrency-"));
const LEVELS = [1, 8, 32];
const ROUNDS = Number(process.env.CONCURRENCY_ROUNDS ?? 6);
const CALLS = Number(process.env.CONCURRENCY_CALLS ?? 320); // per side, level and round

const { policyFile, dbFile } = buildRefundWorkload(dir, { orders: 100_000 });
const { customer_id, orderIds } = allowedRefundsOfOneCustomer(dbFile);
writeFileSync(join(dir, "context.json"), JSON.stringify({ customer_id }));
const callOf = (i) => ({ name: "refund_order", arguments: { order_id: orderIds[i % orderIds.length] } });

const env = { PATH: process.env.PATH ?? "" };
const direct = new Client({ name: "bench", version: "0" });
await direct.connect(
  new StdioClientTransport({ command: process.execPath, args: [upstreamScript], env, stderr: "ignore" }),
);
// the gateway processes, so a batch can read the CPU time each spent on it (Linux: /proc/<pid>/stat)
const pids = new Map();
const TICK_NS = 1e9 / 100; // USER_HZ
const cpuNs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_NS; // utime + stime
};

/** A client of a gateway process started from the build whose CLI is `cli`. */
async function gatewayOf(cli, store) {
  const client = new Client({ name: "bench", version: "0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      // GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=…" profiles the gateway process
      ...(process.env.GATEWAY_NODE_ARGS ? process.env.GATEWAY_NODE_ARGS.split(" ") : []),
      cli,
      "gateway",
      "--policy",
      policyFile,
      "--context",
      join(dir, "context.json"),
      "--store",
      join(dir, store),
      "--",
      process.execPath,
      upstreamScript,
    ],
    env,
    cwd: dir,
    stderr: process.env.GATEWAY_STDERR ? "inherit" : "ignore",
  });
  await client.connect(transport);
  pids.set(client, transport.pid);
  return client;
}
const gateway = await gatewayOf(join(root, "dist", "cli", "main.js"), "gateway.db");
// GATEWAY_BEFORE=<another build's dist/cli/main.js>: that build's gateway as a peer, in the same rounds
const before = process.env.GATEWAY_BEFORE ? await gatewayOf(process.env.GATEWAY_BEFORE, "before.db") : null;
for (const [name, client] of [["direct", direct], ["gateway", gateway], ...(before ? [["before", before]] : [])]) {
  const call = callOf(0);
  const r = await client.callTool(call);
  if (r.isError || r.content[0]?.text !== `refunded ${call.arguments.order_id}`)
    throw new Error(`${name}: the call was not forwarded: ${JSON.stringify(r)}`);
}

/** `CALLS` calls with `n` in flight: each call's latency, and the calls per second of the whole batch. */
async function batch(client, n) {
  const latencies = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < CALLS; i = next++) {
      const t = process.hrtime.bigint();
      const r = await client.callTool(callOf(i));
      latencies.push(Number(process.hrtime.bigint() - t));
      if (r.isError) throw new Error(`call ${i} failed: ${JSON.stringify(r)}`);
    }
  };
  const pid = pids.get(client);
  const cpu0 = pid === undefined ? 0 : cpuNs(pid);
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: n }, worker));
  const perSecond = CALLS / (Number(process.hrtime.bigint() - t0) / 1e9);
  return { latencies, perSecond, cpuPerCall: pid === undefined ? 0 : (cpuNs(pid) - cpu0) / CALLS };
}

const sides = { direct, gateway, ...(before ? { before } : {}) };
const got = {};
for (const n of LEVELS)
  for (const side of Object.keys(sides)) got[`${side} ${n}`] = { latencies: [], rates: [], cpu: [] };
for (const client of Object.values(sides)) for (const n of LEVELS) await batch(client, n); // warm every side at every level
for (let round = 0; round < ROUNDS; round++) {
  for (const n of LEVELS) {
    const names = Object.keys(sides);
    const order = orderOf(round, names.length).map((k) => names[k]);
    for (const side of order) {
      const b = await batch(sides[side], n);
      got[`${side} ${n}`].latencies.push(...b.latencies);
      got[`${side} ${n}`].rates.push(b.perSecond);
      got[`${side} ${n}`].cpu.push(b.cpuPerCall);
    }
  }
}
await direct.close();
await gateway.close();
await before?.close();
rmSync(dir, { recursive: true, force: true });

const figures = [];
const added = {};
for (const n of LEVELS) {
  const d = median(got[`direct ${n}`].latencies);
  const g = median(got[`gateway ${n}`].latencies);
  added[n] = g - d;
  const rateD = median(got[`direct ${n}`].rates);
  const rateG = median(got[`gateway ${n}`].rates);
  const b = before ? { latency: median(got[`before ${n}`].latencies), rate: median(got[`before ${n}`].rates) } : null;
  if (b) added[`before ${n}`] = b.latency - d;
  figures.push(
    figure({
      figure: `tools/call through \`tessera gateway\`, ${n} in flight: median latency (adds ${fmtNs(g - d)})`,
      value: g,
      unit: "ns",
      limitName: `the same calls straight to the upstream, ${n} in flight`,
      limitValue: d,
      peers: b ? [{ name: `the gateway of GATEWAY_BEFORE (adds ${fmtNs(b.latency - d)})`, value: b.latency }] : [],
    }),
    figure({
      figure: `tools/call through \`tessera gateway\`, ${n} in flight: throughput`,
      value: rateG,
      unit: "calls/s",
      higherIsBetter: true,
      limitName: `the same calls straight to the upstream, ${n} in flight`,
      limitValue: rateD,
      peers: b ? [{ name: "the gateway of GATEWAY_BEFORE", value: b.rate }] : [],
    }),
  );
}
figures.push(
  figure({
    figure: "added median latency at 32 in flight, against the added median at 1",
    value: added[32],
    unit: "ns",
    limitName: "the added median at 1 in flight",
    limitValue: added[1],
    target: { ratio: 2 },
    peers: [{ name: "the added median at 8 in flight", value: added[8] }],
  }),
);
const result = { name: "gateway-concurrency", figures };
printResult(result);
console.log(
  `added median: ${LEVELS.map((n) => `${n} in flight ${fmtNs(added[n])}`).join(", ")}; throughput vs direct: ${LEVELS.map((n) => `${n}: ${(median(got[`gateway ${n}`].rates) / median(got[`direct ${n}`].rates)).toFixed(2)}×`).join(", ")}`,
);
// CPU time of the gateway process per call (user + sys, in 10 ms ticks over each batch): what
// queues the calls in flight, and what contention from other processes changes least
const cpu = (side, n) => fmtNs(median(got[`${side} ${n}`].cpu));
console.log(
  `gateway CPU per call: ${LEVELS.map((n) => `${n} in flight ${cpu("gateway", n)}${before ? ` (GATEWAY_BEFORE ${cpu("before", n)})` : ""}`).join(", ")}`,
);
console.log(`RESULT ${JSON.stringify(result)}`);
