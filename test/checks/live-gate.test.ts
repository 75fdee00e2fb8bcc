// The live gate (adr/0130) over a real HTTP Source on 127.0.0.1 that holds its answers until told:
// a policy swapped while 100 calls wait on the old gate and 100 more arrive — every call is decided
// by exactly one of the two policies, the waiting ones by the old, none fails for a closed gate, and
// the audit log records each call's own digest; a broken new policy keeps the old one and says why;
// an editor's save by rename is seen by the watch.
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuditEvents } from "../../src/audit/log.js";
import type { Decision } from "../../src/checks/decision.js";
import { loadPolicy } from "../../src/checks/load.js";
import { createGate } from "../../src/gate.js";
import { createLiveGate, type LiveGate } from "../../src/live-gate.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-live-gate-"));
const file = join(dir, "policy.yaml");
let server: Server;
let base = "";
let holding = true;
let held: ServerResponse[] = [];
let requests = 0;
let waiters: (() => void)[] = [];

/** A policy over the orders API whose one check wants `status` to be `want`. */
const policyText = (want: string) => `version: 1
defaults:
  unlisted_tools: block
sources:
  orders:
    kind: http
    base_url: ${base}
    timeout_ms: 60000
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: orders
              path: /orders/{value}
              match:
                - { column: status, value: ${want} }
audit:
  path: ./audit.db
`;

const answer = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ status: "delivered" }));
};

/** Resolves once the server has received `n` requests in all. */
const received = (n: number) =>
  new Promise<void>((resolve) => {
    const check = () => (requests >= n ? resolve() : waiters.push(check));
    check();
  });

beforeAll(async () => {
  server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
    if (holding) held.push(res);
    else answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) answer(res);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function open(
  events: string[],
  onEvent: (line: string) => void = () => undefined,
  debounceMs = 20,
): Promise<LiveGate> {
  return createLiveGate({
    file,
    load: (f) => loadPolicy(f, { env: {} }),
    build: (p) => createGate(p),
    onEvent: (line) => {
      events.push(line);
      onEvent(line);
    },
    debounceMs,
  });
}

describe("live gate", () => {
  it("a policy swapped under 200 concurrent calls: each is decided wholly by one of the two", async () => {
    writeFileSync(file, policyText("delivered"));
    const events: string[] = [];
    const live = await open(events);
    const a = live.policy.digest;
    try {
      // one call first, so the old gate has its audit log open: closing it under the waiting calls would fail them
      holding = false;
      expect((await live.check({ tool: "refund_order", arguments: { order_id: 1000 } })).decision).toBe("allow");
      holding = true;
      requests = 0;
      const before = Array.from({ length: 100 }, (_, i) =>
        live.check({ tool: "refund_order", arguments: { order_id: 1 + i } }),
      );
      await received(100); // all hundred are in flight on the old gate, waiting for the Source
      writeFileSync(file, policyText("cancelled"));
      const result = await live.reload();
      expect(result.kind).toBe("reloaded");
      const b = live.policy.digest;
      expect(b).not.toBe(a);
      expect(events).toEqual([`reloaded the policy: ${a} -> ${b}`]);
      holding = false;
      const after = Array.from({ length: 100 }, (_, i) =>
        live.check({ tool: "refund_order", arguments: { order_id: 101 + i } }),
      );
      for (const res of held) answer(res);
      held = [];
      const decisions: Decision[] = await Promise.all([...before, ...after]);
      // the old policy allows a delivered order, the new one blocks it: digest and decision agree
      const byDigest = decisions.map(
        (d) => `${d.policy_digest === a ? "A" : d.policy_digest === b ? "B" : "?"} ${d.decision}`,
      );
      expect(byDigest.slice(0, 100)).toEqual(Array(100).fill("A allow"));
      expect(byDigest.slice(100)).toEqual(Array(100).fill("B block"));
      for (const d of decisions) expect(d.checks[0]!.status).not.toBe("error");
      // every decision event carries the digest of the policy that made it
      const logged = readAuditEvents(join(dir, "audit.db"), "tessera.decision.v1");
      expect(logged).toHaveLength(201);
      const logs = (digest: string, decision: string) =>
        logged.filter((e) => e.policy_digest === digest && e.decision === decision).length;
      expect([logs(a, "allow"), logs(b, "block")]).toEqual([101, 100]);
    } finally {
      await live.close();
    }
  });

  it("a new policy that does not load keeps the old one in force and says why", async () => {
    holding = false;
    writeFileSync(file, policyText("delivered"));
    const events: string[] = [];
    const live = await open(events);
    const a = live.policy.digest;
    try {
      writeFileSync(
        file,
        policyText("delivered").replace("path: /orders/{value}", "path: /orders/{value}\n              colum: x"),
      );
      const result = await live.reload();
      expect(result).toMatchObject({ kind: "kept", digest: a });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatch(
        new RegExp(`^kept policy ${a}: the new policy does not load: .*policy\\.yaml:\\d+: .*unknown key "colum"$`),
      );
      const d = await live.check({ tool: "refund_order", arguments: { order_id: 7 } });
      expect([d.policy_digest, d.decision]).toEqual([a, "allow"]);
      // asked again, the broken file is still refused; a fixed one loads
      expect((await live.reload()).kind).toBe("kept");
      writeFileSync(file, policyText("cancelled"));
      expect((await live.reload()).kind).toBe("reloaded");
      expect((await live.check({ tool: "refund_order", arguments: { order_id: 7 } })).decision).toBe("block");
    } finally {
      await live.close();
    }
  });

  it("sees an editor's save by rename over the file, through the folder watch", async () => {
    holding = false;
    writeFileSync(file, policyText("delivered"));
    const events: string[] = [];
    let seen: () => void = () => undefined;
    const reloaded = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const live = await open(events, (line) => {
      if (line.startsWith("reloaded")) seen();
    });
    const a = live.policy.digest;
    try {
      live.watch();
      writeFileSync(join(dir, ".policy.yaml.swp"), policyText("cancelled"));
      renameSync(join(dir, ".policy.yaml.swp"), file);
      await reloaded;
      expect(live.policy.digest).not.toBe(a);
      expect(readFileSync(file, "utf8")).toContain("cancelled");
      expect((await live.check({ tool: "refund_order", arguments: { order_id: 9 } })).decision).toBe("block");
    } finally {
      await live.close();
    }
  });

  it("reloads on SIGHUP", async () => {
    holding = false;
    writeFileSync(file, policyText("delivered"));
    const events: string[] = [];
    let seen: () => void = () => undefined;
    const reloaded = new Promise<void>((resolve) => {
      seen = resolve;
    });
    // a debounce longer than the test: only the signal can reload it in time
    const live = await open(events, (line) => line.startsWith("reloaded") && seen(), 600_000);
    const a = live.policy.digest;
    try {
      live.watch();
      writeFileSync(file, policyText("cancelled"));
      process.kill(process.pid, "SIGHUP");
      await reloaded;
      expect(live.policy.digest).not.toBe(a);
    } finally {
      await live.close();
    }
    expect(process.listenerCount("SIGHUP")).toBe(0); // closing stops listening
  });
});
