// Human-readable output never carries a terminal escape, a control or an invisible character from
// input: tool names and values in `tessera check`, and every error message (issue 15 item 14).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { printable } from "../../src/platform/printable.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}dist/cli/main.js`;
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const HOSTILE = "\u001b[2J\u001b]0;owned\u0007\u202e\u200b\r";

function cli(args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
}

describe("one printable filter", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-printable-"));

  it("escapes every control, format and separator character, and keeps the rest", () => {
    expect(printable(`a${HOSTILE}b`)).toBe("a\\u001b[2J\\u001b]0;owned\\u0007\\u202e\\u200b\\rb");
    expect(printable("line\nnext\ttab", true)).toBe("line\nnext\ttab");
    expect(printable("naïve 😀 ≤ 10⁶")).toBe("naïve 😀 ≤ 10⁶");
    expect(printable("\ud800x")).toBe("\\ud800x");
  });

  it("keeps a hostile tool name off the terminal in `tessera check`", () => {
    const call = join(dir, "call.json");
    writeFileSync(call, JSON.stringify({ tool: `refund_order${HOSTILE}`, arguments: { order_id: 1001 } }));
    const r = cli(["check", "--policy", "examples/refunds/policy.yaml", "--call", call]);
    expect(r.status).toBe(0); // an unlisted tool: allowed by the example's default
    expect(r.stdout).toContain("refund_order\\u001b[2J");
    expect(r.stdout).not.toMatch(UNSAFE);
  });

  it("keeps a hostile key off the terminal in an error message", () => {
    const call = join(dir, "dup.json");
    const key = JSON.stringify(`k${HOSTILE}`);
    writeFileSync(call, `{"tool": "t", "arguments": {${key}: 1, ${key}: 2}}`);
    const r = cli(["check", "--policy", "examples/refunds/policy.yaml", "--call", call]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/duplicate key/);
    expect(r.stderr.replace(/\n$/, "")).not.toMatch(UNSAFE);
  });
});
