// Pins specs/cli.md: the built CLI (dist/cli/main.js) runs every row of the runs table, in order,
// in a scratch folder, and each exit code and stream is checked; every command's --help is held to
// the synopses and options tables; the exit-code table is held to the runs; and the built package
// is imported by name for the entry-points table.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/main.js";
import { specFiles, writeSpecFiles } from "../core/spec-files.js";
import { specTable, word } from "../core/spec-tables.js";

const SPEC = "cli.md";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist/cli/main.js");

let cwd = "";
beforeAll(() => {
  if (!existsSync(MAIN)) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
  cwd = mkdtempSync(join(tmpdir(), "tessera-spec-cli-"));
  for (const dir of ["examples", "cases", "test"]) symlinkSync(join(ROOT, dir), join(cwd, dir));
  for (const d of ["runs", "logs", "prs", "tickets", "commits"])
    cpSync(join(ROOT, "examples/ci-workspace", d), join(cwd, "ws", d), { recursive: true });
  writeSpecFiles(cwd, specFiles(SPEC));
});
afterAll(() => {
  if (cwd !== "") rmSync(cwd, { recursive: true, force: true });
});

/** Split a command line on blanks, keeping "double-quoted" words whole. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function tessera(args: readonly string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const k of Object.keys(env)) if (k.startsWith("TESSERA_")) delete env[k];
  return spawnSync(process.execPath, [MAIN, ...args], { cwd, env, encoding: "utf8", input: "", timeout: 60_000 });
}

/** Does a stream hold what a cell says? Returns a reason when it does not. */
function holds(cell: string, text: string, stream: "stdout" | "stderr"): string | null {
  const lines = text.split("\n").map((l) => l.trimEnd());
  if (cell === "empty") return text === "" ? null : `${stream} is not empty: ${text.slice(0, 200)}`;
  if (cell === "JSON") {
    try {
      JSON.parse(text);
    } catch {
      return `${stream} is not one JSON document`;
    }
    return text.endsWith("}\n") || text.endsWith("]\n") ? null : `${stream} does not end with a line feed`;
  }
  if (cell === "JSON lines") {
    const body = lines.filter((l) => l !== "");
    return body.length > 0 && body.every((l) => JSON.parse(l) !== undefined) ? null : `${stream} is not JSON lines`;
  }
  // a code span of one or two backticks (two when the text holds a backtick): a /regex/ or a JSON string
  const m = /^(``?)(.*)\1$/.exec(cell);
  if (m === null) throw new Error(`not a stream cell: ${cell}`);
  const inner = m[2]!;
  if (inner.startsWith("/") && inner.endsWith("/")) {
    const pattern = new RegExp(inner.slice(1, -1));
    return lines.some((l) => pattern.test(l)) ? null : `no ${stream} line matches ${pattern}: ${text.slice(0, 300)}`;
  }
  const want = JSON.parse(inner) as string;
  if (stream === "stderr") return lines[0] === want ? null : `stderr's first line is ${JSON.stringify(lines[0])}`;
  return lines.includes(want) ? null : `no stdout line is ${JSON.stringify(want)}: ${text.slice(0, 300)}`;
}

/** The synopses a command's --help prints: its usage lines, continuation lines joined on. */
function synopses(help: string): string[] {
  const out: string[] = [];
  for (const line of help.split("\n")) {
    if (line.trim() === "") break;
    const start = /^(?:usage: | +)(tessera .*)$/.exec(line);
    if (start) out.push(start[1]!.replace(/ {3,}.*$/, "").trimEnd());
    else if (/^ +\S/.test(line) && out.length > 0) out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

const runs = specTable(SPEC, "Runs (pinned)");

describe("specs/cli.md", () => {
  describe("runs", () => {
    it("has its table", () => {
      expect(runs.header).toEqual(["command line", "exit", "stdout", "stderr"]);
      expect(runs.rows.length).toBeGreaterThanOrEqual(40);
    });

    it.each(runs.rows.map((r) => [word(r[0]!)!, r]))("%s", (line, r) => {
      const [first, ...args] = words(line);
      expect(first).toBe("tessera");
      const got = tessera(args);
      const problems = [
        got.status === Number(r[1]) ? null : `exit ${got.status}, want ${r[1]}; stderr: ${got.stderr}`,
        holds(r[2]!, got.stdout, "stdout"),
        holds(r[3]!, got.stderr, "stderr"),
      ].filter((p) => p !== null);
      expect(problems).toEqual([]);
    });
  });

  it("the exit-code table lists exactly the codes the runs show for each command", () => {
    const t = specTable(SPEC, "Exit codes (pinned)");
    expect(t.header).toEqual(["code", "means", "shown below for"]);
    const listed = t.rows.flatMap((r) => [...r[2]!.matchAll(/`(\w+)`/g)].map((m) => `${r[0]} ${m[1]}`)).sort();
    const shown = [
      ...new Set(
        runs.rows
          .map((r) => [r[1]!, words(word(r[0]!)!)[1] ?? ""] as const)
          .filter(([, name]) => Object.hasOwn(COMMANDS, name))
          .map(([code, name]) => `${code} ${name}`),
      ),
    ].sort();
    expect(listed).toEqual(shown);
    expect(t.rows.map((r) => Number(r[0]))).toEqual([0, 1, 2, 3, 4]);
  });

  describe("commands", () => {
    const t = specTable(SPEC, "Commands (pinned)");
    const options = specTable(SPEC, "Options (pinned)");
    // review's help also names two gateway options it does not take; grade's abbreviates `--on-*`
    const MENTIONED: Readonly<Record<string, readonly string[]>> = { review: ["--approval-ttl", "--review-ttl"] };

    it("has a row for every command, in the order `tessera help` lists them", () => {
      expect(t.header).toEqual(["command", "synopsis", "stdout", "stderr"]);
      expect(t.rows.map((r) => word(r[0]!))).toEqual(Object.keys(COMMANDS));
    });

    it.each(t.rows.map((r) => [word(r[0]!)!, r]))("%s: its synopses and options are its --help's", (name, r) => {
      const help = tessera([name, "--help"]);
      expect(help.status).toBe(0);
      const want = r[1]!.split("<br>").map((s) => word(s.trim())!);
      expect(synopses(help.stdout)).toEqual(want);
      const named = [...new Set(help.stdout.match(/--[a-z][a-z-]*[a-z](?![-a-z*])/g) ?? [])].filter(
        (o) => !(MENTIONED[name] ?? []).includes(o),
      );
      const table = options.rows.filter((o) => word(o[0]!) === name).map((o) => word(o[1]!)!);
      expect(table.sort()).toEqual(named.sort());
    });

    it.each(
      t.rows.map((r) => word(r[0]!)!).filter((n) => n !== "demo" && n !== "bench"), // demo ignores arguments; bench hands them to the runner
    )("%s refuses an unknown option with exit 2 and one line", (name) => {
      const sub: Readonly<Record<string, string[]>> = {
        policy: ["lint", "x.yaml"],
        review: ["list"],
        audit: ["export"],
        hook: ["claude-code"],
      };
      const r = tessera([name, ...(sub[name] ?? []), "--not-an-option"]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe("");
      // one line; commands that take positionals get parseArgs's hint about `--` on the same line
      expect(r.stderr.startsWith(`tessera ${name}: unknown option '--not-an-option'`), r.stderr).toBe(true);
      expect(r.stderr.split("\n")).toHaveLength(2);
    });
  });

  it("the built package exports every entry point's functions by name", () => {
    const t = specTable(SPEC, "The package's entry points (pinned)");
    expect(t.header).toEqual(["entry point", "export"]);
    const names = t.rows.map((r) => [word(r[0]!)!, word(r[1]!)!]);
    const script = [
      `const out = {};`,
      ...names.map(
        ([from, name]) =>
          `out[${JSON.stringify(`${from} ${name}`)}] = typeof (await import(${JSON.stringify(from)}))[${JSON.stringify(name)}];`,
      ),
      `const { createGate, loadPolicy } = await import("tessera-trust");`,
      `const gate = createGate(await loadPolicy("examples/refunds/policy.yaml"));`,
      `out.gate = [typeof gate.check, typeof gate.close];`,
      `const d = await gate.check({ tool: "refund_order", arguments: { order_id: 1001, amount_cents: 4999 } }, { customer_id: "c-1" });`,
      `out.decision = d.decision; await gate.close();`,
      `console.log(JSON.stringify(out));`,
    ].join("\n");
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const [from, name] of names) expect(out[`${from} ${name}`], `${from} ${name}`).toBe("function");
    expect(out.gate).toEqual(["function", "function"]);
    expect(out.decision).toBe("allow");
  });
});
