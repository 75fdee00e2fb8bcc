// A reader that closes the pipe early (`tessera test | head -1`) ends the command quietly: no stack
// trace, and the exit code a shell gives a process ended by SIGPIPE.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}dist/cli/main.js`;

/** Run the CLI, close its stdout after the first line, and return its exit code and stderr. */
function firstLineThenClose(args: string[]): Promise<{ code: number | null; stderr: string; first: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) child.stdout.destroy();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr, first: out.split("\n")[0]! }));
  });
}

describe("a closed pipe", () => {
  it("ends `tessera test` quietly with 141", async () => {
    const r = await firstLineThenClose(["test", "cases/check"]);
    expect(r.first).toMatch(/^pass {2}cases\/check\//);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(141);
  });
});
