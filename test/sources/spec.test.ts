// Pins every example table of specs/source-binding.md against the code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SourceError } from "../../src/checks/source.js";
import { parseJsonAnswer, rowsAt, scalarRows } from "../../src/sources/adapter-util.js";
import { compileHttpPath } from "../../src/sources/http.js";
import { compileMcpArguments } from "../../src/sources/mcp-arguments.js";
import { type SqlDialect, translatePlaceholders } from "../../src/sources/sql-placeholders.js";

const spec = readFileSync(new URL("../../specs/source-binding.md", import.meta.url), "utf8");

/** The body rows of the table under `## heading`, cells unwrapped from their code spans. */
function table(heading: string): string[][] {
  const section = spec.split(/^## /m).find((s) => s.startsWith(heading));
  if (section === undefined) throw new Error(`no section ${heading}`);
  const lines = section.split("\n").filter((l) => l.startsWith("|"));
  return lines.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split(" | ")
      .map((c) =>
        c
          .trim()
          .replace(/^``(.*)``$/, "$1")
          .replace(/^`(.*)`$/, "$1"),
      ),
  );
}

/** Every table of the section `## heading`, in order. */
function tables(heading: string): string[][][] {
  const section = spec.split(/^## /m).find((s) => s.startsWith(heading));
  if (section === undefined) throw new Error(`no section ${heading}`);
  const out: string[][][] = [];
  let current: string[] | null = null;
  for (const line of section.split("\n")) {
    if (line.startsWith("|")) (current ??= []).push(line);
    else if (current !== null) {
      out.push(rowsOf(current));
      current = null;
    }
  }
  if (current !== null) out.push(rowsOf(current));
  return out;
}

function rowsOf(lines: readonly string[]): string[][] {
  return lines.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split(" | ")
      .map((c) =>
        c
          .trim()
          .replace(/^``(.*)``$/, "$1")
          .replace(/^`(.*)`$/, "$1"),
      ),
  );
}

function outcome<T>(f: () => T): T | string {
  try {
    return f();
  } catch (e) {
    if (e instanceof SourceError) return e.code;
    throw e;
  }
}

describe("specs/source-binding.md", () => {
  const sql = table("SQL placeholders");
  const http = table("HTTP paths");
  const mcp = table("MCP arguments");
  const [cells, bodies] = tables("Result rows");

  it("has every table", () => {
    expect([sql.length, http.length, mcp.length, cells!.length, bodies!.length]).toEqual([17, 13, 6, 6, 5]);
  });

  for (const [columns, row, rows] of cells!) {
    it(`result columns ${columns}: ${row}`, () => {
      const cellsOf = row!.startsWith("binary ")
        ? [Buffer.from(row!.slice("binary ".length).replace(/`/g, ""), "hex")]
        : (JSON.parse(row!) as unknown[]);
      const got = outcome(() => scalarRows("s", columns!.split(","), [cellsOf]));
      expect(got).toEqual(rows!.startsWith("[") ? JSON.parse(rows!) : rows);
    });
  }

  for (const [body, rows] of bodies!) {
    it(`json answer ${body}`, () => {
      const got = outcome(() => {
        const parsed = parseJsonAnswer(body!, "s", "not json");
        return rowsAt(parsed, Array.isArray(parsed) ? undefined : "rows", "s");
      });
      expect(got).toEqual(rows!.startsWith("[") ? JSON.parse(rows!) : rows);
    });
  }

  for (const [dialect, query, sent, order] of sql) {
    it(`${dialect}: ${query}`, () => {
      const got = outcome(() => translatePlaceholders(query!, dialect as SqlDialect));
      if (sent === "source_invalid_query") expect(got).toBe(sent);
      else
        expect(got).toEqual({
          text: sent,
          order: order === "" ? [] : order!.split(","),
          parameters: [...new Set(order === "" ? [] : order!.split(","))],
        });
    });
  }

  for (const [path, bindings, bound] of http) {
    it(`http ${path} with ${bindings}`, () => {
      expect(outcome(() => compileHttpPath(path!).bind(JSON.parse(bindings!)))).toBe(bound);
    });
  }

  for (const [args, bindings, bound] of mcp) {
    it(`mcp ${args} with ${bindings}`, () => {
      expect(compileMcpArguments(JSON.parse(args!)).bind(JSON.parse(bindings!))).toEqual(JSON.parse(bound!));
    });
  }
});
