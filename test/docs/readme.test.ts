// The README as a new user reads it: every `tessera` command in its `sh` blocks runs as written
// (through dist/cli/main.js) and gives the exit code its comment states (`# exits N`), and the
// output shown in a `text` block right after an `sh` block appears in that block's last command's
// stdout. Commands that need something of the user's own are listed in SKIPPED, so none is
// skipped silently. Also: the ADR and spec indexes have a row for every file, the CLI reference a
// row for every command, and no relative link points at a folder (typedoc fails on those).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/main.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist/cli/main.js");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** README commands that cannot run offline against the embedded examples, and why. */
const SKIPPED: Readonly<Record<string, string>> = {
  "npx tessera ingest git ../some-repo --range v1.0..v1.1 --into my-workspace":
    "needs a git repository of the user's own (test/evidence/git.test.ts covers ingest git)",
  "npx tessera check --policy policy.yaml --call call.json --context context.json":
    "needs the user's own policy and call (test/pack.test.ts runs `tessera check` from the installed package)",
  "tessera review list --store /srv/agent/gateway.db":
    "needs a gateway's store with held calls (test/gateway covers review end to end)",
  "tessera review show rv_3f9a0c1b2d4e --store …": "needs a gateway's store with that held call",
  "tessera review approve rv_3f9a0c1b2d4e --ttl 10m --store …": "needs a gateway's store with that held call",
  "tessera review serve --store /srv/agent/gateway.db":
    "serves until stopped (test/review-page/e2e.test.ts runs it in a browser)",
};

interface Fence {
  readonly lang: string;
  readonly lines: readonly string[];
  /** Whether only blank lines separate this fence from the one before it. */
  readonly adjacent: boolean;
}

function fences(md: string): Fence[] {
  const out: Fence[] = [];
  const lines = md.split("\n");
  let gap: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (open === null) {
      gap.push(lines[i]!);
      continue;
    }
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    out.push({ lang: open[1]!, lines: body, adjacent: out.length > 0 && gap.every((l) => l.trim() === "") });
    gap = [];
  }
  return out;
}

/** Splits a shell line into the command and its trailing comment (a `#` after a blank, outside quotes). */
function splitComment(line: string): { command: string; comment: string } {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!)))
      return { command: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
  }
  return { command: line.trimEnd(), comment: "" };
}

interface Step {
  readonly kind: "tessera" | "setup";
  readonly command: string;
  readonly exit: number | null;
  readonly output: string[];
}

function steps(md: string): Step[] {
  const all: Step[] = [];
  let lastTessera: Step | null = null;
  for (const f of fences(md)) {
    if (f.lang === "text" && f.adjacent && lastTessera !== null) {
      lastTessera.output.push(...f.lines.map((l) => l.trimEnd()).filter((l) => l !== ""));
      lastTessera = null;
      continue;
    }
    lastTessera = null;
    if (f.lang !== "sh") continue;
    for (const raw of f.lines) {
      if (raw.trim() === "" || raw.trim().startsWith("#")) continue;
      const { command, comment } = splitComment(raw.trim());
      if (/^npm\s/.test(command)) continue; // the quick start's npm scripts: the suite itself
      if (!/^(npx )?tessera\s/.test(command)) {
        all.push({ kind: "setup", command, exit: null, output: [] });
        continue;
      }
      const exit = /\bexits (\d)\b/.exec(comment);
      const step: Step = { kind: "tessera", command, exit: exit === null ? null : Number(exit[1]), output: [] };
      all.push(step);
      lastTessera = step;
    }
  }
  return all;
}

const STEPS = steps(README);
const TESSERA = STEPS.filter((s) => s.kind === "tessera");
const RUN = TESSERA.filter((s) => !Object.hasOwn(SKIPPED, s.command));

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

describe("README commands, as a new user runs them", () => {
  let cwd = "";
  let done = 0; // steps already run, in README order

  beforeAll(() => {
    if (!existsSync(MAIN)) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
    // a scratch folder that looks like the package folder (cases cite test/fixtures), so the files the README writes
    // (call.json, proposal.json, audit.jsonl …) never land in the repository
    cwd = mkdtempSync(join(tmpdir(), "tessera-readme-"));
    for (const dir of ["examples", "cases", "test"]) symlinkSync(join(ROOT, dir), join(cwd, dir));
  });
  afterAll(() => {
    if (cwd !== "") rmSync(cwd, { recursive: true, force: true });
  });

  function sh(command: string) {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    for (const k of Object.keys(env)) if (k.startsWith("TESSERA_")) delete env[k];
    const line = command.replace(/^(npx )?tessera(?=\s)/, `${shellQuote(process.execPath)} ${shellQuote(MAIN)}`);
    return spawnSync("sh", ["-c", line], { cwd, env, encoding: "utf8" });
  }

  it("finds the README's commands, and every one is either run or listed as skipped", () => {
    expect(RUN.length).toBeGreaterThanOrEqual(15);
    const unmarked = TESSERA.filter((s) => s.exit === null && !Object.hasOwn(SKIPPED, s.command)).map((s) => s.command);
    expect(unmarked, "commands with neither `# exits N` nor an entry in SKIPPED").toEqual([]);
    const stale = Object.keys(SKIPPED).filter((c) => !TESSERA.some((s) => s.command === c));
    expect(stale, "SKIPPED entries no longer in the README").toEqual([]);
    const skippedButMarked = TESSERA.filter((s) => s.exit !== null && Object.hasOwn(SKIPPED, s.command)).map(
      (s) => s.command,
    );
    expect(skippedButMarked).toEqual([]);
  });

  it.each(RUN.map((s) => [s.command, s] as const))("%s", (_name, step) => {
    // run the setup lines (echo … > call.json) and earlier commands this one may depend on
    const index = STEPS.indexOf(step);
    for (; done < index; done++) {
      const before = STEPS[done]!;
      if (before.kind === "setup") {
        const r = sh(before.command);
        expect(r.status, `setup \`${before.command}\` failed: ${r.stderr}`).toBe(0);
      }
    }
    done = index + 1;
    const r = sh(step.command);
    expect(r.status, `stderr: ${r.stderr}`).toBe(step.exit);
    const lines = r.stdout.split("\n").map((l) => l.trimEnd());
    for (const shown of step.output) expect(lines, `the README shows \`${shown}\``).toContain(shown);
  });
});

describe("README code examples", () => {
  // `ts` blocks that import the package; they are plain JavaScript too, so node runs them as they
  // are from the package folder (a package can import itself by name through its exports)
  const blocks = fences(README)
    .map((f, i, all) => ({ f, next: all[i + 1] }))
    .filter(({ f }) => f.lang === "ts" && f.lines.some((l) => /from "tessera-trust(\/\w+)?";$/.test(l)));

  it("finds them", () => expect(blocks.length).toBeGreaterThan(0));

  it.each(blocks.map(({ f, next }) => [f.lines[0]!, f, next] as const))("%s", (_name, f, next) => {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", f.lines.join("\n")], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    if (next?.lang === "text" && next.adjacent) expect(r.stdout.trimEnd()).toBe(next.lines.join("\n").trimEnd());
  });
});

describe("README reference sections and indexes", () => {
  it("the CLI reference has a row for every command in COMMANDS, with the synopses its --help prints", async () => {
    const reference = README.slice(README.indexOf("## CLI reference"), README.indexOf("## Policy reference"));
    const rows = new Map(
      [...reference.matchAll(/^\| `(\w+)` \| (.+) \| (.+) \|$/gm)].map((m) => [m[1]!, m[2]!.replace(/\\\|/g, "|")]),
    );
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const row = rows.get(name);
      expect(row, `no row for \`${name}\``).toBeDefined();
      // each synopsis line of `tessera <name> --help`, without the description some put after it
      const usage = (await entry.load()).usage.split("\n").filter((l) => /^(usage: | +)tessera /.test(l));
      expect(usage.length, name).toBeGreaterThan(0);
      for (const line of usage)
        expect(row, name).toContain(
          `\`${line
            .replace(/^(usage: | +)/, "")
            .replace(/ {3,}.*$/, "")
            .trimEnd()}`,
        );
    }
  });

  it("every relative link in the README names an existing file, not a folder", () => {
    const links = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) {
      const path = join(ROOT, link);
      expect(existsSync(path), link).toBe(true);
      expect(statSync(path).isFile(), `${link} is a folder: typedoc cannot copy it`).toBe(true);
    }
  });

  it("adr/README.md has a row for every record, titled by its first line, in number order", () => {
    const index = readFileSync(join(ROOT, "adr/README.md"), "utf8");
    const files = readdirSync(join(ROOT, "adr"))
      .filter((f) => /^\d{4}-.*\.md$/.test(f))
      .sort();
    expect(files.length).toBeGreaterThan(30);
    const rows = [...index.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| (.+) \| (\w+) \|$/gm)];
    expect(rows.map((r) => r[2])).toEqual(files);
    for (const [, number, file, title] of rows) {
      const first = readFileSync(join(ROOT, "adr", file!), "utf8").split("\n")[0]!;
      expect(first, file).toBe(`# ${number}. ${title}`);
    }
  });

  it("specs/README.md has a row for every spec, and each names a test that exists", () => {
    const index = readFileSync(join(ROOT, "specs/README.md"), "utf8");
    const specs = readdirSync(join(ROOT, "specs"))
      .filter((f) => f.endsWith(".md") && f !== "README.md")
      .sort();
    const rows = [...index.matchAll(/^\| \[([\w-]+\.md)\]\(([\w-]+\.md)\) \| .+ \| `([^`]+)` \|$/gm)];
    expect(rows.map((r) => r[2]).sort()).toEqual(specs);
    for (const [, , , test] of rows) expect(existsSync(join(ROOT, test!)), test).toBe(true);
  });
});
