// The README's Python client (standard library only) runs with python3 against a real
// `tessera serve` of the refunds example and prints what the README shows after it.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { refundsPolicy, root, startServeProcess, tempDir, TOKEN } from "./harness.js";

function readmeBlocks(): { python: string; output: string } {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Serve decisions over HTTP"), readme.indexOf("## CLI reference"));
  const python = /```python\n([\s\S]*?)\n```/.exec(section);
  const text = /```python\n[\s\S]*?\n```\s*```text\n([\s\S]*?)\n```/.exec(section);
  if (python === null || text === null) throw new Error("the README's serve section has no python block and output");
  return { python: python[1]!, output: text[1]! };
}

describe("the README's Python client", () => {
  it("runs against tessera serve with python3 and prints the README's output", async () => {
    const { python, output } = readmeBlocks();
    expect(python).not.toMatch(/^\s*(import|from)\s+(requests|httpx|aiohttp)/m); // the standard library only
    const t = tempDir("tessera-serve-python");
    const serving = await startServeProcess(["--policy", refundsPolicy, "--store", join(t.dir, "s.db")]);
    try {
      const r = spawnSync("python3", ["-I", "-c", python], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TESSERA_URL: serving.url, TESSERA_SERVE_TOKEN: TOKEN },
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trimEnd()).toBe(output.trimEnd());
    } finally {
      serving.child.kill("SIGTERM");
      expect(await serving.exited).toBe(0);
      t.cleanup();
    }
  });
});
