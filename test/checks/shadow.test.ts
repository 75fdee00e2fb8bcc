// Shadow mode (adr/0128) over the refunds example: the same calls decided by the policy as written
// and by the same policy with `mode: shadow` give the same decision bodies apart from `enforced`
// (and the policy digest, since the mode is part of the document); nothing is stopped in shadow —
// `tessera check` exits 0 and says so, hooks allow, adapters run — and `tessera audit shadow`
// counts exactly the blocks and holds the enforcing policy gave.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuard } from "../../src/adapters/guard.js";
import type { Decision, ToolCall } from "../../src/checks/decision.js";
import type { Gate } from "../../src/checks/engine.js";
import { parsePolicy } from "../../src/checks/load.js";
import { createGate } from "../../src/gate.js";
import { claudeCodeAnswer } from "../../src/hooks/claude-code.js";
import { copilotAnswer } from "../../src/hooks/copilot.js";
import { verdictOf } from "../../src/hooks/verdict.js";

const root = new URL("../../", import.meta.url).pathname;
const main = join(root, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "tessera-shadow-"));
const CONTEXT = { customer_id: "c-1" };
const enforceText = readFileSync(join(root, "examples/refunds/policy.yaml"), "utf8");
const shadowText = enforceText.replace(/^version: 1$/m, "version: 1\nmode: shadow");

/** Refunds and cancellations of every order, with amounts in and out of range, and two unlisted or shadowing names. */
function calls(): ToolCall[] {
  const out: ToolCall[] = [];
  for (let id = 1001; id <= 1010; id++) {
    for (const amount of [1, 4999, 100_000, -5])
      out.push({ tool: "refund_order", arguments: { order_id: id, amount_cents: amount } });
    out.push({ tool: "cancel_order", arguments: { order_id: id } });
  }
  out.push({ tool: "refund_order", arguments: { order_id: "not-a-number", amount_cents: 1 } });
  out.push({ tool: "lookup_order", arguments: { order_id: 1001 } });
  out.push({ tool: "Refund_Order", arguments: { order_id: 1001 } });
  return out;
}

const withoutMode = (d: Decision) => {
  const { enforced: _e, policy_digest: _p, ...rest } = d;
  return rest;
};

let enforce: Gate;
let shadow: Gate;
let enforced: Decision[];
let shadowed: Decision[];

beforeAll(async () => {
  copyFileSync(join(root, "examples/refunds/billing.db"), join(dir, "billing.db"));
  writeFileSync(join(dir, "enforce.yaml"), enforceText);
  writeFileSync(join(dir, "shadow.yaml"), shadowText);
  writeFileSync(join(dir, "context.json"), JSON.stringify(CONTEXT));
  enforce = createGate(parsePolicy(enforceText, join(dir, "enforce.yaml"), { env: {} }));
  shadow = createGate(parsePolicy(shadowText, join(dir, "shadow.yaml"), { env: {} }), {
    audit: join(dir, "shadow.db"),
  });
  enforced = [];
  shadowed = [];
  for (const call of calls()) {
    enforced.push(await enforce.check(call, CONTEXT));
    shadowed.push(await shadow.check(call, CONTEXT));
  }
});

afterAll(async () => {
  await enforce?.close();
  await shadow?.close();
});

function tessera(args: string[]) {
  const r = spawnSync(process.execPath, [main, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH, NO_COLOR: "1", TESSERA_POLICY_CACHE: "off" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("shadow mode", () => {
  it("decides every call as the enforcing policy does, marked enforced: false", () => {
    const outcomes = new Set(enforced.map((d) => d.decision));
    expect([...outcomes].sort()).toEqual(["allow", "block", "hold"]); // the call set reaches every outcome
    for (let i = 0; i < enforced.length; i++) {
      expect(enforced[i]!.enforced, "an enforcing decision has no `enforced` key").toBeUndefined();
      expect(Object.hasOwn(enforced[i]!, "enforced")).toBe(false);
      expect(shadowed[i]!.enforced).toBe(false);
      expect(withoutMode(shadowed[i]!)).toEqual(withoutMode(enforced[i]!));
    }
  });

  it("a tool's own mode shadows only that tool", async () => {
    const text = enforceText.replace(/^ {2}cancel_order:\n/m, "  cancel_order:\n    mode: shadow\n");
    const gate = createGate(parsePolicy(text, join(dir, "one-tool.yaml"), { env: {} }));
    try {
      const cancel = await gate.check({ tool: "cancel_order", arguments: { order_id: 1003 } }, CONTEXT);
      const refund = await gate.check(
        { tool: "refund_order", arguments: { order_id: 1003, amount_cents: 1 } },
        CONTEXT,
      );
      const unlisted = await gate.check({ tool: "lookup_order", arguments: {} }, CONTEXT);
      expect([cancel.decision, cancel.enforced]).toEqual(["block", false]);
      expect([refund.decision, Object.hasOwn(refund, "enforced")]).toEqual(["block", false]);
      expect(Object.hasOwn(unlisted, "enforced")).toBe(false);
    } finally {
      await gate.close();
    }
  });

  it("`tessera check` exits 0 in shadow and says so; the same call blocks when enforced", () => {
    writeFileSync(
      join(dir, "call.json"),
      JSON.stringify({ tool: "refund_order", arguments: { order_id: 1003, amount_cents: 1 } }),
    );
    const enforcing = tessera([
      "check",
      "--policy",
      "enforce.yaml",
      "--call",
      "call.json",
      "--context",
      "context.json",
    ]);
    expect(enforcing.code).toBe(1);
    expect(enforcing.stdout).not.toContain("shadow");
    const text = tessera(["check", "--policy", "shadow.yaml", "--call", "call.json", "--context", "context.json"]);
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n")[1]).toBe(
      "shadow mode: not enforced, the call is allowed (exit 0); this is what the policy decided",
    );
    const json = tessera([
      "check",
      "--policy",
      "shadow.yaml",
      "--call",
      "call.json",
      "--context",
      "context.json",
      "--json",
    ]);
    expect(json.code).toBe(0);
    const d = JSON.parse(json.stdout) as Decision;
    expect(Object.keys(d)).toEqual(["decision", "tool", "policy_digest", "enforced", "checks"]);
    expect([d.decision, d.enforced]).toEqual(["block", false]);
  });

  it("hooks allow a shadow decision and say what would have happened", () => {
    const blocked = shadowed.find((d) => d.decision === "block")!;
    const v = verdictOf(blocked);
    expect(v.decision).toBe("allow");
    expect(v.reason).toMatch(/^tessera shadow mode, not enforced: would block: blocked by tessera \(policy sha256:/);
    const claude = JSON.parse(claudeCodeAnswer(v).stdout) as { hookSpecificOutput: Record<string, string> };
    expect(claude.hookSpecificOutput.permissionDecision).toBe("allow");
    expect(JSON.parse(copilotAnswer(v).stdout).permissionDecision).toBe("allow");
    // enforced, the same call is denied
    expect(verdictOf(enforced[shadowed.indexOf(blocked)]!).decision).toBe("block");
  });

  it("an adapter's guard runs every shadow decision, and says the policy is in shadow mode", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    // a gate of its own, so the audit log counted below holds only the calls of beforeAll
    const gate = createGate(parsePolicy(shadowText, join(dir, "shadow.yaml"), { env: {} }));
    const guard = createGuard(gate, { context: () => CONTEXT });
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    process.off("warning", onWarning);
    expect(guard.shadow).toMatch(/^the whole policy is in shadow mode: /);
    expect(warnings).toEqual([`tessera: ${guard.shadow}`]);
    for (const call of calls()) {
      const v = await guard.verdict(call.tool, call.arguments, undefined);
      expect(v.action, call.tool).toBe("run");
    }
    await gate.close();
    expect(createGuard(enforce).shadow).toBeNull();
  });

  it("`tessera audit shadow` counts what would have been blocked or held, per tool and check", () => {
    const r = tessera(["audit", "shadow", "--store", "shadow.db", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      decisions: number;
      allowed: number;
      would_block: number;
      would_hold: number;
      tools: {
        tool: string;
        would_block: number;
        would_hold: number;
        checks: { check: string; would_block: number; would_hold: number }[];
      }[];
    };
    const count = (o: string, tool?: string) =>
      enforced.filter((d) => d.decision === o && (tool === undefined || d.tool === tool)).length;
    expect(report.decisions).toBe(enforced.length);
    expect([report.would_block, report.would_hold, report.allowed]).toEqual([
      count("block"),
      count("hold"),
      count("allow"),
    ]);
    for (const t of report.tools) {
      expect([t.tool, t.would_block, t.would_hold]).toEqual([t.tool, count("block", t.tool), count("hold", t.tool)]);
      for (const c of t.checks) {
        const [argument, index] = c.check.replace("]", "").split("[");
        const per = (o: string) =>
          enforced.filter(
            (d) =>
              d.tool === t.tool &&
              d.checks.some((x) => x.argument === argument && String(x.check) === index && x.outcome === o),
          ).length;
        if (!c.check.startsWith("("))
          expect([c.check, c.would_block, c.would_hold]).toEqual([c.check, per("block"), per("hold")]);
      }
    }
    const unlisted = report.tools.find((t) => t.tool === "Refund_Order")!;
    expect(unlisted.checks).toEqual([
      { check: "(tool_name_shadows)", source: null, would_block: 1, would_hold: 0, codes: ["tool_name_shadows"] },
    ]);
    const text = tessera(["audit", "shadow", "--store", "shadow.db"]);
    expect(text.stdout.split("\n")[0]).toBe(
      `shadow mode: ${enforced.length} decisions: ${count("block")} would have been blocked, ${count("hold")} held, ${count("allow")} allowed`,
    );
  });
});
