// specs/policy.md: every row of the pinned tables is checked against the code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createEngine, parsePolicy, type Source, SourceError } from "../../src/checks/index.js";

const spec = readFileSync(new URL("../../specs/policy.md", import.meta.url), "utf8");

/** Rows of the table under the heading `## <title> (pinned)`, as cells with outer backticks removed. */
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

const base = (condition: string, query = "SELECT status FROM orders WHERE order_id = :value") => `version: 1
sources:
  billing: { kind: sqlite, path: ./billing.db }
defaults: { unlisted_tools: allow }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: ${JSON.stringify(query)}
              match:
                - ${condition}
`;

function result(text: string): string {
  try {
    parsePolicy(text, "policy.yaml", { env: {} });
    return "ok";
  } catch (err) {
    return (err as Error).message;
  }
}

describe("specs/policy.md", () => {
  const conditions = table("Conditions");
  const queries = table("Queries");
  const outcomes = table("Outcomes");

  it("has its tables", () => {
    expect([conditions.length, queries.length, outcomes.length]).toEqual([17, 10, 12]);
  });

  it.each(conditions)("condition %s", (condition, want) => {
    expect(result(base(condition!))).toBe(want);
  });

  it.each(queries)("query %s", (query, want) => {
    expect(result(base("{ column: status, value: delivered }", query))).toBe(want);
  });

  it.each(outcomes)(
    "source %s, on_fail %s, on_error %s",
    async (behaviour, onFail, onError, status, outcome, requests) => {
      const policy = parsePolicy(
        base(
          `{ column: status, ctx: wanted }\n              on_fail: ${onFail}\n              retry: { attempts: 2, on_error: ${onError} }`,
        ),
        "policy.yaml",
        { env: {} },
      );
      let asked = 0;
      const answers: (() => { status: string }[])[] =
        behaviour === "fails every time"
          ? [
              () => {
                throw new SourceError("source_server_error", "down");
              },
            ]
          : behaviour === "fails, then answers; conditions hold"
            ? [
                () => {
                  throw new SourceError("source_timeout", "slow");
                },
                () => [{ status: "delivered" }],
              ]
            : behaviour === "answers; conditions fail"
              ? [() => [{ status: "placed" }]]
              : [() => [{ status: "delivered" }]];
      const source: Source = {
        kind: "script",
        timeoutMs: 5000,
        prepare: () => ({
          parameters: ["value"],
          run: async () => ({ rows: answers[Math.min(asked++, answers.length - 1)]!() }),
        }),
        close: async () => undefined,
      };
      const args = behaviour.includes("argument is absent")
        ? {}
        : behaviour.includes("spelled `01001`")
          ? { order_id: "01001" }
          : behaviour.includes("shadowed by `ORDER_ID`")
            ? { order_id: 1, ORDER_ID: 2 }
            : { order_id: 1 };
      const context = behaviour.includes("binding is missing") ? {} : { wanted: "delivered" };
      const d = await createEngine(policy, async () => source).check(
        { tool: "refund_order", arguments: args },
        context,
      );
      expect([d.checks[0]!.status, d.checks[0]!.outcome, String(asked)]).toEqual([status, outcome, requests]);
    },
  );
});
