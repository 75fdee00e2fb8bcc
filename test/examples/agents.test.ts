// examples/agents/: each framework's example agent runs as a user runs it (node, from the package
// folder, importing `tessera-trust/...` by name) and shows allow → ran, block → not ran, and
// hold → queued, approved, then ran once.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../mcp/helpers.js";

describe.each(["ai-sdk", "openai-agents", "langchain"])("examples/agents/%s.mjs", (name) => {
  it("allows the own refund, blocks someone else's, and runs the held cancellation once after approval", () => {
    const r = spawnSync(process.execPath, [join(root, "examples", "agents", `${name}.mjs`)], {
      cwd: root,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^refund_order 1001: "?refunded 4999 cents on order 1001"?$/);
    expect(lines[1]).toMatch(/^refund_order 1003: blocked by tessera \(policy sha256:[0-9a-f]{64}\)$/);
    expect(lines[2]).toMatch(/^cancel_order 1001: held for human review as rv_[0-9a-f]{12}: /);
    expect(lines[3]).toMatch(/^approved rv_[0-9a-f]{12} \(tessera review approve rv_[0-9a-f]{12} --store .+\)$/);
    expect(lines[4]).toMatch(/^cancel_order 1001 again: "?cancelled order 1001"?$/);
    expect(lines[5]).toBe("ran: refund_order 1001, cancel_order 1001");
    expect(lines).toHaveLength(6);
  });
});
