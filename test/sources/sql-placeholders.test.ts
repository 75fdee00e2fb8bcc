import { describe, expect, it } from "vitest";
import { SourceError } from "../../src/checks/source.js";
import { translatePlaceholders } from "../../src/sources/sql-placeholders.js";

const pg = (sql: string) => translatePlaceholders(sql, "postgres");
const my = (sql: string) => translatePlaceholders(sql, "mysql");

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return e instanceof SourceError ? e.code : `other: ${String(e)}`;
  }
  return "no error";
}

describe("postgres placeholders", () => {
  it("numbers distinct names in order of first use and reuses a repeated name", () => {
    const t = pg("SELECT a FROM t WHERE a = %(value)s AND b = %(customer_id)s OR c = %(value)s");
    expect(t).toEqual({
      text: "SELECT a FROM t WHERE a = $1 AND b = $2 OR c = $1",
      order: ["value", "customer_id"],
      parameters: ["value", "customer_id"],
    });
  });
  it("leaves placeholders inside a string literal, including doubled quotes", () => {
    expect(pg("SELECT 'it''s %(value)s' , %(x)s").text).toBe("SELECT 'it''s %(value)s' , $1");
  });
  it("treats backslash as an escape only in E'' strings", () => {
    expect(pg("SELECT E'a\\' %(no)s', %(x)s").text).toBe("SELECT E'a\\' %(no)s', $1");
    // in a standard string the backslash is literal, so the quote closes it
    expect(pg("SELECT 'a\\', %(x)s").text).toBe("SELECT 'a\\', $1");
  });
  it("skips dollar-quoted strings, tagged and untagged", () => {
    expect(pg("SELECT $$ %(a)s $$, $tag$ it's %(b)s $x$ $tag$, %(c)s").text).toBe(
      "SELECT $$ %(a)s $$, $tag$ it's %(b)s $x$ $tag$, $1",
    );
  });
  it("skips quoted identifiers", () => {
    expect(pg('SELECT "col %(a)s" FROM "t""x" WHERE v = %(value)s').text).toBe(
      'SELECT "col %(a)s" FROM "t""x" WHERE v = $1',
    );
  });
  it("skips line comments and nested block comments", () => {
    const t = pg("SELECT 1 -- %(a)s\n/* x /* %(b)s */ %(c)s */ WHERE v = %(value)s");
    expect(t.parameters).toEqual(["value"]);
  });
  it("does not take an identifier's dollar sign for a dollar quote", () => {
    expect(pg("SELECT a$b$ FROM t WHERE v = %(value)s").text).toBe("SELECT a$b$ FROM t WHERE v = $1");
  });
  it("keeps the modulo operator and jsonb ? operator", () => {
    expect(pg("SELECT 7 % 3, j ? 'k' FROM t WHERE v = %(value)s").text).toBe(
      "SELECT 7 % 3, j ? 'k' FROM t WHERE v = $1",
    );
  });
  it("refuses hand-written positional parameters, malformed placeholders and unterminated text", () => {
    expect(code(() => pg("SELECT $1"))).toBe("source_invalid_query");
    expect(code(() => pg("SELECT %(bad name)s"))).toBe("source_invalid_query");
    expect(code(() => pg("SELECT %(x)d"))).toBe("source_invalid_query");
    expect(code(() => pg("SELECT 'open"))).toBe("source_invalid_query");
    expect(code(() => pg('SELECT "open'))).toBe("source_invalid_query");
    expect(code(() => pg("SELECT $q$ open"))).toBe("source_invalid_query");
    expect(code(() => pg("SELECT /* /* */"))).toBe("source_invalid_query");
  });
});

describe("mysql placeholders", () => {
  it("gives one ? per occurrence, with the names in positional order", () => {
    expect(my("SELECT a FROM t WHERE a = %(value)s AND b = %(c)s OR d = %(value)s")).toEqual({
      text: "SELECT a FROM t WHERE a = ? AND b = ? OR d = ?",
      order: ["value", "c", "value"],
      parameters: ["value", "c"],
    });
  });
  it("skips single- and double-quoted strings with backslash escapes", () => {
    expect(my("SELECT 'a\\' %(a)s', \"b\\\" %(b)s\", %(x)s").text).toBe("SELECT 'a\\' %(a)s', \"b\\\" %(b)s\", ?");
  });
  it("skips backtick identifiers", () => {
    expect(my("SELECT `c %(a)s` FROM t WHERE v = %(value)s").text).toBe("SELECT `c %(a)s` FROM t WHERE v = ?");
  });
  it("skips -- (with a space), # and /* */ comments, but --1 is arithmetic", () => {
    expect(my("SELECT 1 -- %(a)s\n# %(b)s\n/* %(c)s */ , 5--%(value)s").parameters).toEqual(["value"]);
  });
  it("refuses ?, executable comments and unterminated text", () => {
    expect(code(() => my("SELECT ?"))).toBe("source_invalid_query");
    expect(code(() => my("SELECT /*! 1 */"))).toBe("source_invalid_query");
    expect(code(() => my("SELECT /*M! 1 */"))).toBe("source_invalid_query");
    expect(code(() => my("SELECT `x"))).toBe("source_invalid_query");
    expect(code(() => my("SELECT 'x\\'"))).toBe("source_invalid_query");
  });
  it("allows a ? inside literals and comments", () => {
    expect(my("SELECT '?', `?` -- ?\n").parameters).toEqual([]);
  });
});
