// Every Decision over HTTP is the CLI's, byte for byte: each case of cases/check is set up as
// `tessera test` sets it up (fixtures, recordings, live set-ups; src/replay/kinds/check.ts), then
// its call is decided by the gate in process — what `tessera check --json` prints, `jsonOut` of
// the decision — and by the service over real HTTP, and the two texts must be equal. A call the CLI
// refuses with an error is a 4xx here. Then the same through two processes: `tessera serve` and
// `tessera check --json` on the refunds example.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/checks/load.js";
import type { Policy } from "../../src/checks/policy.js";
import { createGate, registryOpener } from "../../src/gate.js";
import { jsonOut } from "../../src/platform/format.js";
import { parseJson } from "../../src/platform/json.js";
import { parseCheckCase } from "../../src/replay/kinds/check/case.js";
import { buildFixtures, loadRecordings } from "../../src/replay/kinds/check/fixtures.js";
import { liveEnv, runSetup } from "../../src/replay/kinds/check/live.js";
import { type Miss, replayOpener } from "../../src/replay/kinds/check/replay.js";
import { loadCase } from "../../src/replay/load.js";
import { check, refundsPolicy, root, runCli, serveInProcess, startServeProcess, tempDir } from "./harness.js";

const casesDir = join(root, "cases", "check");
const REQUIRE_LIVE = process.env.TESSERA_REQUIRE_LIVE === "1";

function caseFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? caseFiles(p) : f.endsWith(".yaml") ? [p] : [];
    })
    .sort();
}

const store = tempDir("tessera-serve-cases");
afterAll(() => store.cleanup());

/** How a case compares: equal texts, the CLI's error against a 4xx, or why it was not run. */
type Compared = { kind: "equal" } | { kind: "refused"; status: number } | { kind: "skipped"; why: string };

async function compareCase(file: string): Promise<Compared> {
  const doc = loadCase(file, ["check"]);
  const ctx = { file, dir: dirname(file), env: process.env };
  const c = parseCheckCase(doc, ctx);
  if (c.explain === "values") return { kind: "skipped", why: "explain: values is a CLI option the API does not take" };
  const live = liveEnv(c.live, { ...process.env, ...(c.env ?? {}) });
  if ("stop" in live) {
    if (REQUIRE_LIVE) throw new Error(`${file}: ${live.stop.failures.join("; ")}`);
    return { kind: "skipped", why: live.stop.skipped ?? "live server missing" };
  }
  const tmp = mkdtempSync(join(tmpdir(), "tessera-serve-case-"));
  try {
    let policy: Policy;
    try {
      policy = await loadPolicy(c.policy, { env: live.env, cwd: ctx.dir });
    } catch {
      return { kind: "skipped", why: "the policy does not load: serve exits 2 as check does" };
    }
    const recorded = c.fixtures !== undefined ? await loadRecordings(policy, c.fixtures, ctx) : new Map();
    if (c.fixtures !== undefined) policy = await buildFixtures(policy, c.fixtures, ctx, tmp);
    if (c.setup_sql !== undefined) {
      const stop = await runSetup(policy, c.setup_sql, ctx, live.defaulted);
      if (stop !== null) {
        if (REQUIRE_LIVE) throw new Error(`${file}: ${stop.failures.join("; ")}`);
        return { kind: "skipped", why: stop.skipped ?? "set-up failed" };
      }
    }
    const { audit: _a, ...quiet } = policy;
    const misses: Miss[] = [];
    const opener = recorded.size > 0 ? replayOpener(quiet, recorded, misses) : registryOpener(quiet);
    const gate = createGate(quiet, { openSource: opener });
    // what `tessera check --call f.json --context g.json --json` does: read both as strict JSON, then decide
    const body = {
      tool: (c.call as { tool: unknown }).tool,
      arguments: (c.call as { arguments?: unknown }).arguments ?? {},
      context: c.context ?? {},
    };
    let cli: string | Error;
    try {
      const read = parseJson(JSON.stringify(body)) as typeof body;
      cli = jsonOut(await gate.check({ tool: read.tool, arguments: read.arguments } as never, read.context as never));
    } catch (err) {
      cli = err as Error;
    } finally {
      await gate.close();
    }
    const serving = await serveInProcess(quiet, {
      store: join(store.dir, `${relative(casesDir, file).replace(/[/\\]/g, "_")}.db`),
      openSource: recorded.size > 0 ? replayOpener(quiet, recorded, misses) : registryOpener(quiet),
      // a recording holds no probe: readiness is not what these cases compare
      ...(recorded.size > 0 ? { probeOpenSource: () => Promise.reject(new Error("not probed")) } : {}),
    });
    try {
      const got = await check(serving.url, body);
      expect(misses, `${file}: a recorded response is missing`).toEqual([]);
      if (cli instanceof Error) {
        expect(
          got.status,
          `${file}: the CLI refused (${cli.message}); HTTP answered ${got.text}`,
        ).toBeGreaterThanOrEqual(400);
        expect(got.status, file).toBeLessThan(500);
        return { kind: "refused", status: got.status };
      }
      // a context key the policy does not declare: the CLI ignores it, the service refuses it (adr/0123)
      const undeclared = Object.keys(c.context ?? {}).filter((k) => !quiet.context.includes(k));
      if (undeclared.length > 0) {
        expect(got.status, file).toBe(403);
        return { kind: "refused", status: 403 };
      }
      expect(got.status, `${file}: ${got.text}`).toBe(200);
      expect(got.text, file).toBe(cli);
      return { kind: "equal" };
    } finally {
      await serving.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe("the cases of cases/check over HTTP", () => {
  const files = caseFiles(casesDir);
  const tally = { equal: 0, refused: 0, skipped: 0 };

  for (const file of files) {
    it(relative(casesDir, file), async () => {
      const r = await compareCase(file);
      tally[r.kind] += 1;
    });
  }

  it("compared most of them byte for byte", () => {
    expect(tally.equal).toBeGreaterThanOrEqual(100);
    // only the explain and broken-policy cases are left out, and never a live case under CI
    expect(tally.skipped).toBeLessThan(20);
  });
});

describe("tessera serve and tessera check --json as processes", () => {
  it("print the same bytes for the refunds example's calls", async () => {
    const t = tempDir("tessera-serve-cli");
    const serving = await startServeProcess(["--policy", refundsPolicy, "--store", join(t.dir, "store.db")]);
    try {
      const context = { customer_id: "c-1" };
      const ctxFile = join(t.dir, "context.json");
      writeFileSync(ctxFile, JSON.stringify(context));
      const calls = [
        { tool: "refund_order", arguments: { order_id: 1001, amount_cents: 4999 } },
        { tool: "refund_order", arguments: { order_id: 1003, amount_cents: 2500 } },
        { tool: "refund_order", arguments: { order_id: "1001", amount_cents: 10 } },
        { tool: "cancel_order", arguments: { order_id: 1001 } },
        { tool: "lookup_order", arguments: { order_id: 1001 } },
        { tool: "Refund_Order", arguments: { order_id: 1001 } },
      ];
      for (const [i, call] of calls.entries()) {
        const callFile = join(t.dir, `call-${i}.json`);
        writeFileSync(callFile, JSON.stringify(call));
        const cli = await runCli([
          "check",
          "--policy",
          refundsPolicy,
          "--call",
          callFile,
          "--context",
          ctxFile,
          "--json",
        ]);
        const got = await check(serving.url, { ...call, context });
        expect(got.status).toBe(200);
        expect(got.text, JSON.stringify(call)).toBe(cli.stdout);
        expect(["run", "refuse", "hold"]).toContain(got.headers.get("tessera-action"));
      }
    } finally {
      serving.child.kill("SIGTERM");
      expect(await serving.exited).toBe(0);
      t.cleanup();
    }
  });
});
