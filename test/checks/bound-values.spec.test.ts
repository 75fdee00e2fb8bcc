// specs/bound-values.md: every row of the pinned tables is checked against the code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bindingSource } from "../../src/checks/bindings.js";
import { createEngine, parsePolicy, type Source } from "../../src/checks/index.js";
import { TesseraError } from "../../src/platform/errors.js";
import { parseJson } from "../../src/platform/json.js";

const spec = readFileSync(new URL("../../specs/bound-values.md", import.meta.url), "utf8");

function table(title: string): string[][] {
  const section = spec.split(`## ${title} (pinned)`)[1]?.split("\n## ")[0];
  if (section === undefined) throw new Error(`no pinned section ${title}`);
  const rows = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("|---"));
  return rows.slice(1).map((l) =>
    l
      .slice(2, -2)
      .split(" | ")
      .map((c) => c.trim().replace(/^`(.*)`$/, "$1")),
  );
}

const list = (cell: string) => cell.split(", ").map((c) => c.replace(/^`|`$/g, ""));
// the spec writes invisible characters as \u escapes so a reader can see them
const fromEscapes = (s: string) =>
  s.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));

const policy = (listed: readonly string[], tool = "t") =>
  parsePolicy(
    `version: 1
sources: { db: { kind: sqlite, path: ./unused.db } }
tools:
  ${tool}:
    arguments:
      ${listed[0]}:
        ground:
          checks:
            - { source: db, query: "SELECT 1 AS one WHERE :value IS NOT NULL", match: [ { rows: gte, value: 0 } ] }
${listed
  .slice(1)
  .map((n) => `      ${n}: {}\n`)
  .join("")}`,
    "p.yaml",
    { env: {} },
  );

/** A Source that answers one row and counts the requests it is asked. */
function source(onRun: () => void = () => undefined): Source {
  return {
    kind: "script",
    timeoutMs: 5000,
    prepare: () => ({
      parameters: ["value"],
      run: async () => {
        onRun();
        return { rows: [{ one: 1 }] };
      },
    }),
    close: async () => undefined,
  };
}

async function decide(listed: readonly string[], args: Record<string, unknown>) {
  let asked = 0;
  const counted = source(() => asked++);
  const gate = createEngine(policy(listed), async () => counted);
  try {
    return { decision: await gate.check({ tool: "t", arguments: args }), asked };
  } finally {
    await gate.close();
  }
}

describe("specs/bound-values.md", () => {
  const json = table("JSON input");
  const numbers = table("Numbers and numeric strings as arguments");
  const keys = table("Keys that shadow a listed argument");
  const sources = table("Where a name binds from");
  const toolNames = table("Tool names that shadow a listed tool");

  it("has its tables", () => {
    expect([json.length, numbers.length, keys.length, sources.length, toolNames.length]).toEqual([16, 30, 16, 5, 7]);
  });

  it.each(json)("reads %s: %s", (input, result, path) => {
    let got: string[];
    try {
      parseJson(input!);
      got = ["ok", ""];
    } catch (err) {
      expect(err).toBeInstanceOf(TesseraError);
      got = [(err as TesseraError).code, (err as TesseraError).path ?? ""];
    }
    expect(got).toEqual([result, path === "—" ? "" : path]);
  });

  it.each(numbers)("binds %s: %s", async (value, bound) => {
    const { decision, asked } = await decide(["order_id"], { order_id: JSON.parse(fromEscapes(value!)) });
    if (bound === "yes") {
      expect([decision.decision, asked]).toEqual(["allow", 1]);
    } else {
      expect([decision.decision, asked, decision.checks[0]?.error?.code]).toEqual(["block", 0, "argument_invalid"]);
    }
  });

  it.each(keys)("listed %s, keys %s: %s", async (listed, given, result) => {
    const args = Object.fromEntries(list(given!).map((k) => [fromEscapes(k), 1]));
    const { decision, asked } = await decide(list(listed!), args);
    const message = decision.checks[0]?.error?.message ?? "";
    const got =
      decision.decision === "allow"
        ? "ok"
        : /shadows/.test(message)
          ? "shadowed"
          : /is absent/.test(message)
            ? "absent"
            : message;
    expect(got).toBe(result);
    expect(asked).toBe(result === "ok" ? 1 : 0);
  });

  it.each(toolNames)("listed %s, call's tool %s: %s %s", async (listed, tool, want, reason) => {
    const gate = createEngine(policy(["order_id"], list(listed!)[0]), async () => source());
    try {
      const d = await gate.check({ tool: fromEscapes(list(tool!)[0]!), arguments: { order_id: 1 } });
      expect([d.decision, d.reason ?? "—"]).toEqual([want, reason]);
    } finally {
      await gate.close();
    }
  });

  it.each(sources)("binds %s (context %s, listed %s) from %s", (name, context, listed, from) => {
    expect(bindingSource(name!, new Set(list(context!)), new Set(list(listed!))) ?? "nothing").toBe(from);
  });
});
