// Only `tessera gateway` itself loads the MCP SDK: `tessera review`, `tessera audit` and
// `tessera gateway --help` stay clean (specs/README.md). Uses the resolve-hook fixture of test/leak.test.ts.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliPath, root, tempDir, upstreamScript } from "./harness.js";
import { writePolicy } from "./policy.js";

const fixture = join(root, "test", "fixtures", "leak");
const SDK = "/node_modules/@modelcontextprotocol/sdk/";
const { dir, cleanup } = tempDir("gw-leak");
afterAll(cleanup);
let n = 0;

/** Resolved module URLs of a fresh CLI process with the logging hook; stdin is empty. */
function sdkLoadedBy(args: string[]): string[] {
  const log = join(dir, `${n++}.log`);
  const r = spawnSync(process.execPath, ["--import", join(fixture, "register.mjs"), cliPath, ...args], {
    cwd: dir,
    encoding: "utf8",
    input: "",
    env: { PATH: process.env.PATH ?? "", TESSERA_LEAK_LOG: log },
  });
  if (r.status !== 0) throw new Error(`process failed (${r.status}): ${r.stderr}`);
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map(decodeURIComponent)
    .filter((u) => u.includes(SDK));
}

describe("where the gateway commands load the MCP SDK", () => {
  it("review, audit and gateway --help do not; gateway does", () => {
    const policy = writePolicy(dir, 4);
    const store = join(dir, "gateway.db");
    expect(sdkLoadedBy(["gateway", "--help"])).toStrictEqual([]);
    // stdin is empty: the gateway starts its upstream, creates the store, reads end of input and exits 0
    const loaded = sdkLoadedBy([
      "gateway",
      "--policy",
      policy,
      "--store",
      store,
      "--",
      process.execPath,
      upstreamScript,
    ]);
    expect(loaded.some((u) => u.endsWith("/server/index.js"))).toBe(true);
    expect(loaded.some((u) => u.endsWith("/client/index.js"))).toBe(true);
    expect(sdkLoadedBy(["review", "list", "--store", store])).toStrictEqual([]);
    expect(sdkLoadedBy(["audit", "export", "--jsonl", "--store", store])).toStrictEqual([]);
  });
});
