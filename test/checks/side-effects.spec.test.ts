// specs/policy.md, "Side-effecting functions" and "Side-effect examples": the deny-list table is
// the code's list, every listed name is refused when called (in every spelling the spec names) and
// accepted as a plain column or a longer name, and every example row loads or fails as it says.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../src/checks/load.js";
import { SIDE_EFFECT_FUNCTIONS } from "../../src/checks/requests.js";
import type { SqlDialect } from "../../src/checks/sql-tokens.js";

const spec = readFileSync(new URL("../../specs/policy.md", import.meta.url), "utf8");

/** Body rows of the table under `## <title> (pinned)`, cells unwrapped from their code spans. */
function table(title: string): string[][] {
  const section = spec.split(`## ${title} (pinned)`)[1]?.split("\n## ")[0];
  if (section === undefined) throw new Error(`no pinned section ${title}`);
  const rows = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("|---"));
  return rows.slice(1).map((l) =>
    l
      .slice(2, -2)
      .split(" | ")
      .map((c) =>
        c
          .trim()
          .replace(/^``(.*)``$/, "$1")
          .replace(/^`(.*)`$/, "$1"),
      ),
  );
}

const SOURCE: Readonly<Record<SqlDialect, string>> = {
  postgres: "{ kind: postgres, url: postgres://reader@127.0.0.1/db }",
  mysql: "{ kind: mysql, url: mysql://reader@127.0.0.1/db }",
  sqlite: "{ kind: sqlite, path: ./billing.db }",
};

/** `ok`, or the first problem's message without its `file:line: path: ` prefix. */
function load(dialect: SqlDialect, query: string): string {
  const text = `version: 1
sources:
  billing: ${SOURCE[dialect]}
defaults: { unlisted_tools: allow }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: ${JSON.stringify(query)}
              match: [ { rows: gte, value: 0 } ]
`;
  try {
    parsePolicy(text, "policy.yaml", { env: {} });
    return "ok";
  } catch (err) {
    const prefix = "policy.yaml:12: tools.refund_order.arguments.order_id.ground.checks[0].query: ";
    const message = (err as Error).message;
    return message.startsWith(prefix) ? message.slice(prefix.length) : message;
  }
}

const refused = (name: string) => `a query must be read-only; \`${name}()\` has side effects and is not allowed`;
const placeholder = (d: SqlDialect) => (d === "sqlite" ? ":value" : "%(value)s");

describe("specs/policy.md: side-effecting functions", () => {
  const lists = table("Side-effecting functions");
  const examples = table("Side-effect examples");

  it("has its tables: one list per dialect, the code's own", () => {
    expect(lists.map((r) => r[0])).toEqual(["postgres", "mysql", "sqlite"]);
    for (const [dialect, names] of lists) {
      expect(names!.split(", ").map((n) => n.replace(/`/g, ""))).toEqual(SIDE_EFFECT_FUNCTIONS[dialect as SqlDialect]);
    }
    expect(examples.length).toBe(28);
  });

  it.each(lists.flatMap(([d, names]) => names!.split(", ").map((n) => [d!, n.replace(/`/g, "")])))(
    "%s: %s is refused in every spelling, and a column of that name is not",
    (d, name) => {
      const dialect = d as SqlDialect;
      const v = placeholder(dialect);
      const quote = dialect === "mysql" ? "`" : '"';
      for (const call of [
        `${name}(${v})`,
        `${name.toUpperCase()}(${v})`,
        `${quote}${name}${quote}(${v})`,
        `some_schema.${name} /* c */ (${v})`,
        `${name}\n  (${v})`,
      ]) {
        expect(load(dialect, `SELECT ${call} AS x`), call).toBe(refused(name));
      }
      expect(load(dialect, `SELECT ${name}, ${name}_at, x.${name} FROM t x WHERE id = ${v}`)).toBe("ok");
      expect(load(dialect, `SELECT '${name}(1)' AS note FROM t WHERE id = ${v}`)).toBe("ok");
    },
  );

  it.each(examples)("%s: %s", (dialect, query, want) => {
    expect(load(dialect as SqlDialect, query!)).toBe(want);
  });
});
