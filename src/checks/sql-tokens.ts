/**
 * The one SQL lexer for policy lint (`requests.ts`) and the Postgres/MySQL adapters
 * (`src/sources/sql-placeholders.ts`): it splits a query into code and the runs the server never
 * reads as code (string literals, quoted identifiers, dollar-quoted strings, comments), so both
 * agree on where a placeholder or a keyword really is. Dialect rules:
 * - Postgres: `E'…'` strings take backslash escapes, plain `'…'` do not; block comments nest;
 *   `$tag$…$tag$` strings; `"…"` identifiers.
 * - MySQL: `'…'` and `"…"` strings take backslash escapes; `` `…` `` identifiers; `#` comments;
 *   `--` starts a comment only before whitespace or a control character (`5--x` is 5 minus -x);
 *   block comments do not nest; executable comments (`/*!…*\/`, `/*M!…*\/`) are refused.
 * - SQLite: no backslash escapes; `"…"`, `` `…` `` and `[…]` identifiers; block comments do not
 *   nest and an unterminated one runs to the end.
 * @module
 */

/** Which SQL lexical rules apply. */
export type SqlDialect = "sqlite" | "postgres" | "mysql";

/** What a run of the query is. */
export type SqlSegmentKind = "code" | "string" | "identifier" | "dollar" | "comment";

/** One run of the query: `sql.slice(start, end)`; for strings, `body` is the text between the quotes. */
export interface SqlSegment {
  readonly kind: SqlSegmentKind;
  readonly start: number;
  readonly end: number;
  readonly body?: string;
}

/** A query cut into segments; `error` says why lexing stopped early (the rest is one last non-code segment). */
export interface SqlLex {
  readonly segments: readonly SqlSegment[];
  readonly error: string | null;
}

const IDENT_PART = /[A-Za-z0-9_\u0080-\uffff]/;
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;

class LexStop extends Error {}

const isIdentPart = (ch: string | undefined): boolean => ch !== undefined && IDENT_PART.test(ch);

/** Index just past a quoted run opened at `i`; a doubled quote escapes, and a backslash when `backslash`. */
function quoted(sql: string, i: number, close: string, backslash: boolean, doubled: boolean, what: string): number {
  let j = i + 1;
  while (j < sql.length) {
    const ch = sql[j];
    if (backslash && ch === "\\") {
      j += 2;
      continue;
    }
    if (ch === close) {
      if (doubled && sql[j + 1] === close) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  throw new LexStop(`unterminated ${what}`);
}

/** Index just past a block comment opened at `i`. */
function blockComment(sql: string, i: number, nested: boolean, lenient: boolean): number {
  let depth = 1;
  let j = i + 2;
  while (j < sql.length) {
    if (nested && sql.startsWith("/*", j)) {
      depth++;
      j += 2;
      continue;
    }
    if (sql.startsWith("*/", j)) {
      depth--;
      j += 2;
      if (depth === 0) return j;
      continue;
    }
    j++;
  }
  if (lenient) return sql.length;
  throw new LexStop("unterminated block comment");
}

function lineEnd(sql: string, i: number): number {
  const nl = sql.indexOf("\n", i);
  return nl === -1 ? sql.length : nl + 1;
}

/** `$tag$` opening a Postgres dollar-quoted string at `i`, or null. */
function dollarTag(sql: string, i: number): string | null {
  if (isIdentPart(sql[i - 1]) || sql[i - 1] === "$") return null; // `a$b$` is an identifier
  let j = i + 1;
  if (sql[j] === "$") return "$$";
  if (!IDENT_START.test(sql[j] ?? "")) return null;
  while (j < sql.length && isIdentPart(sql[j])) j++;
  return sql[j] === "$" ? sql.slice(i, j + 1) : null;
}

/**
 * Cut `sql` into code, literals, identifiers and comments under `dialect`'s rules.
 * @example lexSql("SELECT 1 -- x", "postgres").segments.map((s) => s.kind) // ["code", "comment"]
 */
export function lexSql(sql: string, dialect: SqlDialect): SqlLex {
  const pg = dialect === "postgres";
  const my = dialect === "mysql";
  const segments: SqlSegment[] = [];
  let codeStart = 0;
  let i = 0;
  const push = (kind: SqlSegmentKind, start: number, end: number, body?: string): void => {
    if (codeStart < start) segments.push({ kind: "code", start: codeStart, end: start });
    segments.push(body === undefined ? { kind, start, end } : { kind, start, end, body });
    codeStart = end;
    i = end;
  };
  try {
    while (i < sql.length) {
      const c = sql[i]!;
      const next = sql[i + 1];
      if (c === "'") {
        // Postgres: only an E'…' string (E not ending an identifier) takes backslash escapes
        const backslash = my || (pg && (sql[i - 1] === "E" || sql[i - 1] === "e") && !isIdentPart(sql[i - 2]));
        const end = quoted(sql, i, "'", backslash, true, "string literal");
        push("string", i, end, sql.slice(i + 1, end - 1));
      } else if (c === '"') {
        const end = quoted(sql, i, '"', my, true, my ? "string literal" : "quoted identifier");
        if (my) push("string", i, end, sql.slice(i + 1, end - 1));
        else push("identifier", i, end);
      } else if (c === "`" && !pg) {
        push("identifier", i, quoted(sql, i, "`", false, true, "quoted identifier"));
      } else if (c === "[" && dialect === "sqlite") {
        push("identifier", i, quoted(sql, i, "]", false, false, "quoted identifier"));
      } else if (c === "-" && next === "-" && (!my || i + 2 >= sql.length || /[\s\x00-\x1f]/.test(sql[i + 2]!))) {
        push("comment", i, lineEnd(sql, i));
      } else if (c === "#" && my) {
        push("comment", i, lineEnd(sql, i));
      } else if (c === "/" && next === "*") {
        if (my && (sql[i + 2] === "!" || sql.startsWith("M!", i + 2)))
          throw new LexStop("mysql executable comments (`/*!`) are not allowed");
        push("comment", i, blockComment(sql, i, pg, dialect === "sqlite"));
      } else if (c === "$" && pg) {
        const tag = dollarTag(sql, i);
        if (tag === null) {
          i++;
          continue;
        }
        const close = sql.indexOf(tag, i + tag.length);
        if (close === -1) throw new LexStop("unterminated dollar-quoted string");
        push("dollar", i, close + tag.length, sql.slice(i + tag.length, close));
      } else {
        i++;
      }
    }
  } catch (err) {
    if (!(err instanceof LexStop)) throw err;
    // the rest is unreadable: never hand it out as code
    if (codeStart < i) segments.push({ kind: "code", start: codeStart, end: i });
    segments.push({ kind: "comment", start: i, end: sql.length });
    return { segments, error: err.message };
  }
  if (codeStart < sql.length) segments.push({ kind: "code", start: codeStart, end: sql.length });
  return { segments, error: null };
}
