// Pins specs/cases.md: its example files are written into a folder beside the repository's
// examples/ and test/, every example case runs through the real loader and runner
// (src/replay/run.ts), and the built `tessera test` runs over them for the report and exit codes.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaseFile } from "../../src/replay/run.js";
import { compareWant } from "../../src/replay/want.js";
import { specFiles, writeSpecFiles } from "../core/spec-files.js";
import { specTable, specText, value, word } from "../core/spec-tables.js";

const SPEC = "cases.md";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist/cli/main.js");
const FILES = specFiles(SPEC);
const CASES = FILES.filter((f) => f.path.endsWith(".yaml"));
const KINDS = ["check", "verify", "ground", "draft", "grade"];
const COMMON = ["note", "kind", "want"];
const inCi = process.env.CI !== undefined || process.env.TESSERA_REQUIRE_LIVE === "1";

let root = "";
beforeAll(() => {
  if (!existsSync(MAIN)) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
  root = mkdtempSync(join(tmpdir(), "tessera-spec-cases-"));
  for (const dir of ["examples", "test"]) symlinkSync(join(ROOT, dir), join(root, dir));
  writeSpecFiles(root, FILES);
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

function tessera(args: readonly string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1" },
    encoding: "utf8",
  });
}

/** The body of the first ```text block after `heading`. */
function textBlock(heading: string): string {
  const text = specText(SPEC);
  const at = text.indexOf(`### ${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  return /```text\n([\s\S]*?)```/.exec(text.slice(at))![1]!;
}

describe("specs/cases.md", () => {
  describe("matching want", () => {
    const t = specTable(SPEC, "Matching `want` (pinned)");
    it("has its table", () => {
      expect(t.header).toEqual(["want", "got", "failures"]);
      expect(t.rows.length).toBeGreaterThanOrEqual(6);
    });
    it.each(t.rows.map((r) => [r[0]!, r[1]!, r]))("compareWant(%s, %s)", (_w, _g, r) => {
      const failures = r[2] === "—" ? [] : [...r[2]!.matchAll(/``\s?(.*?)\s?``/g)].map((m) => m[1]!);
      expect(compareWant(value(r[0]!), value(r[1]!))).toEqual(failures);
    });
  });

  describe("example outcomes", () => {
    const t = specTable(SPEC, "Example outcomes (pinned)");
    it("lists every example case, once", () => {
      expect(t.header).toEqual(["case", "status"]);
      expect(t.rows.map((r) => word(r[0]!)).sort()).toEqual(CASES.map((f) => f.path).sort());
    });
    it.each(t.rows.map((r) => [word(r[0]!)!, r[1]!]))("%s is %s", async (path, status) => {
      const doc = parseYaml(CASES.find((f) => f.path === path)!.text) as Record<string, unknown>;
      const r = await runCaseFile(join(root, path), process.env);
      if (r.status === "skipped" && !inCi && doc.live !== undefined) return;
      expect({ status: r.status, failures: status === "passed" ? r.failures : [] }).toEqual({
        status,
        failures: [],
      });
      if (status !== "passed") expect(r.failures.length).toBeGreaterThan(0);
    });
  });

  describe.each(KINDS)("the %s kind", (kind) => {
    const t = specTable(SPEC, `${kind} (pinned)`);
    const keys = t.rows.map((r) => word(r[0]!)!);
    const examples = CASES.filter((f) => !f.path.startsWith("cases/broken/")).filter(
      (f) => (parseYaml(f.text) as { kind: string }).kind === kind,
    );

    it("its table lists exactly the keys its examples use, and they use every one", () => {
      expect(t.header).toEqual(["key", "required", "value"]);
      expect(examples.length).toBeGreaterThan(0);
      const used = new Set(examples.flatMap((f) => Object.keys(parseYaml(f.text) as object)));
      expect([...used].filter((k) => !COMMON.includes(k)).sort()).toEqual([...keys].sort());
    });

    it("a key its table does not list makes a case malformed", async () => {
      const file = join(root, examples[0]!.path.replace(/\.yaml$/, ".extra.yml"));
      writeSpecFiles(root, [
        {
          path: examples[0]!.path.replace(/\.yaml$/, ".extra.yml"),
          text: `${examples[0]!.text}not_a_key: 1\n`,
          heading: "",
        },
      ]);
      try {
        const r = await runCaseFile(file, process.env);
        expect(r.status).toBe("invalid");
        expect(r.failures.join("\n")).toMatch(/not_a_key/);
      } finally {
        rmSync(file);
      }
    });
  });

  it("the keys every case has are the loader's: a case without one is malformed", async () => {
    const t = specTable(SPEC, "Keys of every case");
    expect(t.rows.map((r) => word(r[0]!))).toEqual(COMMON);
    expect(word(t.rows[1]![1]!.split(", ")[0]!)).toBe(KINDS[0]);
    for (const kind of KINDS) expect(t.rows[1]![1]).toContain(`\`${kind}\``);
    const base = CASES.find((f) => f.path === "cases/check/refund-own-order.yaml")!;
    for (const key of COMMON) {
      const path = `cases/check/without-${key}.yml`;
      const text =
        key === "want"
          ? base.text.slice(0, base.text.indexOf("want:"))
          : base.text
              .split("\n")
              .filter((l) => !l.startsWith(`${key}:`))
              .join("\n");
      writeSpecFiles(root, [{ path, text, heading: "" }]);
      const r = await runCaseFile(join(root, path), process.env);
      expect(r.status, key).toBe("invalid");
      expect(r.failures.join("\n"), key).toMatch(new RegExp(`${key}: `));
      rmSync(join(root, path));
    }
  });

  it("prints the report of the broken examples, exactly", () => {
    const text = specText(SPEC);
    const section = text.slice(text.indexOf("### Report of the broken examples (pinned)"));
    const command = /`tessera (test [^`]+)`/.exec(section)![1]!.split(" ");
    const r = tessera(command);
    expect(r.stdout).toBe(textBlock("Report of the broken examples (pinned)"));
    expect(r.status).toBe(Number(/exits (\d)/.exec(section)![1]));
  });

  it.each(specTable(SPEC, "Exit codes (pinned)").rows.map((r) => [word(r[0]!)!, Number(r[1])]))(
    "%s exits %i",
    (command, exit) => {
      const r = tessera(command.replace(/^tessera /, "").split(" "));
      expect(r.status, r.stdout + r.stderr).toBe(exit);
    },
  );
});
