// Policy lint (placeholdersOf / splitSql) and the Postgres/MySQL adapters (translatePlaceholders)
// share one lexer, src/checks/sql-tokens.ts. Each of the four places they used to disagree is
// pinned here on both sides, then a differential property checks they agree on random queries.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { placeholdersOf, splitSql } from "../../src/checks/requests.js";
import { lexSql } from "../../src/checks/sql-tokens.js";
import { type SqlDialect, translatePlaceholders } from "../../src/sources/sql-placeholders.js";

const lint = (dialect: SqlDialect | "sqlite", query: string) => {
  const scan = placeholdersOf(dialect, { query });
  return { names: scan.names, codes: scan.problems.map((p) => p.code) };
};
const adapter = (dialect: SqlDialect, query: string): readonly string[] | string => {
  try {
    return translatePlaceholders(query, dialect).parameters;
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
};

describe("Postgres E'…' escape strings", () => {
  it("a backslash-escaped quote does not end the literal", () => {
    const q = "SELECT status FROM orders WHERE note = E'it\\'s %(value)s' AND order_id = %(id)s";
    expect(adapter("postgres", q)).toEqual(["id"]);
    expect(lint("postgres", q)).toEqual({ names: ["id"], codes: ["placeholder_quoted"] });
    expect(splitSql(q, "postgres").literals).toEqual(["it\\'s %(value)s"]);
  });

  it("cannot hide a second statement behind a quote the old splitter paired wrongly", () => {
    const q = "SELECT E'\\'' , 1; DELETE FROM orders --'";
    expect(lint("postgres", q).codes).toEqual(expect.arrayContaining(["sql_many_statements", "sql_not_read_only"]));
  });

  it("a plain '…' string (standard_conforming_strings) keeps the backslash as text, and `xe'` is no E-string", () => {
    expect(adapter("postgres", "SELECT 'a\\' WHERE id = %(value)s")).toEqual(["value"]);
    expect(lint("postgres", "SELECT 'a\\' WHERE id = %(value)s").names).toEqual(["value"]);
    expect(lexSql("SELECT xe'a\\' , %(value)s", "postgres").segments.map((s) => s.kind)).toEqual([
      "code",
      "string",
      "code",
    ]);
  });
});

describe("Postgres nested block comments", () => {
  const q = "SELECT status FROM orders /* outer /* inner */ %(hidden)s */ WHERE order_id = %(value)s";
  it("a placeholder inside the outer comment is not one", () => {
    expect(adapter("postgres", q)).toEqual(["value"]);
    expect(lint("postgres", q)).toEqual({ names: ["value"], codes: [] });
  });

  it("MySQL and SQLite comments do not nest", () => {
    expect(adapter("mysql", q)).toEqual(["hidden", "value"]);
    expect(lint("mysql", q).names).toEqual(["hidden", "value"]);
    expect(lint("sqlite", "SELECT 1 /* a /* b */ FROM orders WHERE order_id = :value */").names).toEqual(["value"]);
  });

  it("an unterminated nested comment is refused by both", () => {
    const open = "SELECT 1 /* a /* b */ WHERE order_id = %(value)s";
    expect(adapter("postgres", open)).toBe("source_invalid_query: unterminated block comment");
    expect(lint("postgres", open).codes).toContain("sql_syntax");
  });
});

describe("MySQL `--` needs a following space", () => {
  it("`5--%(value)s` is 5 minus minus the value in MySQL, a comment in Postgres", () => {
    const q = "SELECT status FROM orders WHERE order_id = 5--%(value)s";
    expect(adapter("mysql", q)).toEqual(["value"]);
    expect(lint("mysql", q)).toEqual({ names: ["value"], codes: [] });
    expect(adapter("postgres", q)).toEqual([]);
    expect(lint("postgres", q).names).toEqual([]);
  });

  it("`1--1; DELETE …` is two statements in MySQL", () => {
    expect(lint("mysql", "SELECT status FROM orders WHERE order_id = 1--1; DELETE FROM orders").codes).toEqual(
      expect.arrayContaining(["sql_many_statements", "sql_not_read_only"]),
    );
  });

  it("`-- ` with a space, a tab or at the end is a comment", () => {
    for (const q of ["SELECT 1 -- %(x)s", "SELECT 1 --\t%(x)s", "SELECT 1 --"]) {
      expect(adapter("mysql", q)).toEqual([]);
      expect(lint("mysql", q)).toEqual({ names: [], codes: [] });
    }
  });
});

describe("MySQL executable comments", () => {
  it.each([
    "SELECT status FROM orders WHERE order_id = %(value)s /*! AND 1 = 0 */",
    "SELECT 1 /*!50000 , sleep(5) */",
    "SELECT 1 /*M!100000 , 2 */",
  ])("`%s` is refused by lint and adapter", (q) => {
    expect(adapter("mysql", q)).toBe("source_invalid_query: mysql executable comments (`/*!`) are not allowed");
    const scan = placeholdersOf("mysql", { query: q });
    expect(scan.problems.find((p) => p.code === "sql_syntax")).toMatchObject({
      severity: "error",
      key: "query",
      message: "mysql query: mysql executable comments (`/*!`) are not allowed",
    });
  });

  it("is an ordinary comment to Postgres, and `/* ! */` is no executable comment", () => {
    expect(lint("postgres", "SELECT 1 /*! x */ WHERE a = %(value)s")).toEqual({ names: ["value"], codes: [] });
    expect(adapter("mysql", "SELECT 1 /* ! x */ WHERE a = %(value)s")).toEqual(["value"]);
  });
});

describe("lint and adapter agree (differential)", () => {
  const FRAGMENTS = [
    "SELECT status FROM orders WHERE",
    " order_id = %(value)s",
    " note = 'it''s %(q)s'",
    " note = E'a\\'b %(e)s'",
    " x = 'c\\'",
    "'",
    " /* a /* b */ %(n)s */",
    " /*! %(x)s */",
    " 5--%(m)s",
    " -- %(c)s\n",
    " #%(h)s\n",
    ' "col%(d)s"',
    " `t%(b)s`",
    " $tag$ %(t)s $tag$",
    " a$b$ = %(v2)s",
    " AND",
    " OR",
    " 1",
    " = ",
    "\n",
    " $$",
    " /*",
    " */",
    ' "',
    " `",
  ];
  const query = fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 8 }).map((xs) => xs.join(""));
  it.each(["postgres", "mysql"] as const)(
    "%s: same placeholders, and a lexing error on both sides or neither",
    (dialect) => {
      fc.assert(
        fc.property(query, (q) => {
          const got = adapter(dialect, q);
          const scan = placeholdersOf(dialect, { query: q });
          const lexError = scan.problems.some((p) => p.code === "sql_syntax");
          if (typeof got === "string") {
            expect(lexError || scan.problems.some((p) => p.code === "placeholder_syntax"), `${q} → ${got}`).toBe(true);
          } else {
            expect(lexError, q).toBe(false);
            expect(scan.names, q).toEqual(got);
          }
        }),
        { numRuns: 600 },
      );
    },
  );
});
