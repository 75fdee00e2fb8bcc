// The compiled-policy cache of `tessera check` and `tessera hook` (adr/0087): a cached policy is
// the loaded one, a changed file is loaded afresh, a policy with `${VAR}` is never written to disk,
// and a per-call process with a warm cache loads neither yaml nor zod.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/checks/load.js";
import { loadPolicyCached, policyCacheDir } from "../../src/checks/policy-cache.js";
import { cliPath, root } from "../mcp/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-policy-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { XDG_CACHE_HOME: join(dir, "cache") };
const refunds = readFileSync(join(root, "examples", "refunds", "policy.yaml"), "utf8").replace(
  "./billing.db",
  join(root, "examples", "refunds", "billing.db"),
);

describe("loadPolicyCached", () => {
  it("answers with exactly the policy loadPolicy gives, from the cache the second time", async () => {
    const file = join(dir, "p.yaml");
    writeFileSync(file, refunds);
    const fresh = await loadPolicy(file, { env });
    expect(await loadPolicyCached(file, { env })).toStrictEqual(fresh);
    expect(readdirSync(policyCacheDir(env))).toHaveLength(1);
    expect(await loadPolicyCached(file, { env })).toStrictEqual(fresh);
  });

  it("loads a changed file afresh", async () => {
    const file = join(dir, "q.yaml");
    writeFileSync(file, refunds);
    const before = await loadPolicyCached(file, { env });
    writeFileSync(file, refunds.replace("unlisted_tools: allow", "unlisted_tools: block"));
    const after = await loadPolicyCached(file, { env });
    expect(before.defaults.unlisted_tools).toBe("allow");
    expect(after.defaults.unlisted_tools).toBe("block");
    expect(after.digest).not.toBe(before.digest);
  });

  it("never caches a policy that uses ${VAR}", async () => {
    const own = {
      XDG_CACHE_HOME: join(dir, "cache-vars"),
      BILLING_DB: join(root, "examples", "refunds", "billing.db"),
    };
    const file = join(dir, "v.yaml");
    writeFileSync(file, refunds.replace(join(root, "examples", "refunds", "billing.db"), "${BILLING_DB}"));
    const p = await loadPolicyCached(file, { env: own });
    expect(p.sources.billing).toMatchObject({ kind: "sqlite" });
    expect(existsSync(policyCacheDir(own))).toBe(false);
  });
});

it("`tessera check` with a warm cache loads neither yaml nor zod", () => {
  const log = join(dir, "loaded.log");
  const args = [
    "--import",
    join(root, "test", "fixtures", "leak", "register.mjs"),
    cliPath,
    "check",
    "--policy",
    join(root, "examples", "refunds", "policy.yaml"),
    "--call",
    join(root, "examples", "refunds", "calls", "refund-own-order.json"),
    "--context",
    join(root, "examples", "refunds", "context.json"),
  ];
  const run = () =>
    spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, ...env, TESSERA_LEAK_LOG: log } });
  expect(run().status).toBe(0);
  const cold = readFileSync(log, "utf8");
  expect(cold).toContain("/node_modules/zod/"); // control: the first run loads and validates the file
  rmSync(log);
  expect(run().status).toBe(0);
  const warm = readFileSync(log, "utf8");
  expect(warm).not.toContain("/node_modules/zod/");
  expect(warm).not.toContain("/node_modules/yaml/");
});
