// Every coding agent's hook protocol, as golden input/output pairs: each file under
// test/fixtures/hooks/<agent>/ holds the command line, the hook input on stdin, and the exact exit
// code, stdout and stderr the built `tessera hook` must answer with (fail closed on every error).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeCodeAnswer } from "../../src/hooks/claude-code.js";
import { copilotAnswer } from "../../src/hooks/copilot.js";
import { specTable, word } from "../core/spec-tables.js";
import { cliPath, root } from "../mcp/helpers.js";

const dir = join(root, "test", "fixtures", "hooks");

interface Golden {
  readonly args: string[];
  readonly stdin: string;
  readonly exit: number;
  readonly stdout: string;
  readonly stderr: string;
}

const agents = ["claude-code", "copilot"];

describe.each(agents)("tessera hook %s", (agent) => {
  const files = readdirSync(join(dir, agent)).filter((f) => f.endsWith(".json"));
  it("has golden pairs for allow, deny, hold, unlisted tools, an unreachable Source and malformed input", () => {
    const names = files.join(" ");
    for (const want of ["allow", "someone-elses", "hold", "unlisted", "unreachable", "malformed"])
      expect(names, want).toContain(want);
  });
  it.each(files)("%s", (file) => {
    const g = JSON.parse(readFileSync(join(dir, agent, file), "utf8")) as Golden;
    const r = spawnSync(process.execPath, [cliPath, ...g.args], { cwd: dir, input: g.stdin, encoding: "utf8" });
    expect({ exit: r.status, stdout: r.stdout, stderr: r.stderr }).toStrictEqual({
      exit: g.exit,
      stdout: g.stdout,
      stderr: g.stderr,
    });
    // the protocol's own rules, whatever the golden says
    if (agent === "claude-code" && g.exit === 0) {
      const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } };
      expect(["allow", "deny", "ask"]).toContain(out.hookSpecificOutput.permissionDecision);
    }
    if (agent === "claude-code") expect([0, 2]).toContain(r.status); // any other exit lets the call run
    if (agent === "copilot") {
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout) as { permissionDecision: string };
      expect(out.permissionDecision).toBe(file.startsWith("allow") ? "allow" : "deny");
    }
  });
});

describe("specs/hooks.md: Answers (pinned)", () => {
  const t = specTable("hooks.md", "Answers (pinned)");
  const answer = { "claude-code": claudeCodeAnswer, copilot: copilotAnswer } as const;
  it("has a row for every agent and verdict", () => {
    expect(t.header).toEqual(["agent", "verdict", "exit", "decision on stdout"]);
    expect(t.rows.map((r) => `${word(r[0]!)} ${r[1]}`)).toEqual(
      agents.flatMap((a) => ["allow", "block", "hold", "error"].map((v) => `${a} ${v}`)),
    );
  });
  it.each(t.rows.map((r) => [`${word(r[0]!)} ${r[1]}`, r] as const))("%s", (_name, r) => {
    const a = answer[word(r[0]!) as keyof typeof answer];
    const got = a({ decision: r[1] as "allow", reason: r[1] === "allow" ? "" : "because" });
    expect(got.exit).toBe(Number(r[2]));
    const want = r[3] === "none" ? null : word(r[3]!);
    const out = got.stdout === "" ? null : (JSON.parse(got.stdout) as Record<string, unknown>);
    const decision =
      out === null ? null : ((out.hookSpecificOutput as Record<string, unknown> | undefined) ?? out).permissionDecision;
    expect(decision ?? null).toBe(want);
    if (r[1] === "error") expect(got.stderr).toMatch(/^tessera hook: .*\(the call is denied\)\n$/);
  });
});
