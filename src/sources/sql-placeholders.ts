/**
 * `%(name)s` placeholders in SQL, found by a small lexer that skips string literals, quoted
 * identifiers, dollar-quoted strings and comments, so a placeholder-looking text inside them is
 * left alone. Postgres gets `$n` (one per distinct name), MySQL gets `?` (one per occurrence).
 * @module
 */
import { SourceError } from "../checks/source.js";

/** Which SQL lexical rules apply. */
export type SqlDialect = "postgres" | "mysql";

/** A query with its placeholders replaced by the driver's positional markers. */
export interface TranslatedSql {
  /** The SQL text sent to the server. */
  readonly text: string;
  /** Binding names in positional order: `values[i]` is the binding `order[i]`. */
  readonly order: readonly string[];
  /** Distinct binding names, in order of first appearance. */
  readonly parameters: readonly string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_\u0080-\uffff]/;

function invalid(message: string): SourceError {
  return new SourceError("source_invalid_query", message);
}

/** Index just past a quoted run that starts at `i` (the opening quote); doubled quotes escape. */
function skipQuoted(sql: string, i: number, quote: string, backslashEscapes: boolean, what: string): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (backslashEscapes && c === "\\") { j += 2; continue; }
    if (c === quote) {
      if (sql[j + 1] === quote) { j += 2; continue; }
      return j + 1;
    }
    j++;
  }
  throw invalid(`unterminated ${what}`);
}

/** Postgres block comments nest; MySQL's do not. */
function skipBlockComment(sql: string, i: number, nested: boolean): number {
  let depth = 1;
  let j = i + 2;
  while (j < sql.length) {
    if (nested && sql.startsWith("/*", j)) { depth++; j += 2; continue; }
    if (sql.startsWith("*/", j)) {
      depth--;
      j += 2;
      if (depth === 0) return j;
      continue;
    }
    j++;
  }
  throw invalid("unterminated block comment");
}

function skipLine(sql: string, i: number): number {
  const nl = sql.indexOf("\n", i);
  return nl === -1 ? sql.length : nl + 1;
}

/** `$tag$` at `i`, or null when `$` does not open a dollar quote here. */
function dollarTag(sql: string, i: number): string | null {
  let j = i + 1;
  if (sql[j] === "$") return "$$";
  if (!IDENT_START.test(sql[j] ?? "") ) return null;
  while (j < sql.length && IDENT_PART.test(sql[j]!) && sql[j] !== "$") j++;
  return sql[j] === "$" ? sql.slice(i, j + 1) : null;
}

/**
 * Replace every `%(name)s` outside literals, identifiers and comments. Throws
 * `SourceError("source_invalid_query")` for an unterminated literal or comment, a malformed
 * `%(`, a positional marker written by hand (`$1`, `?`) or a MySQL executable comment.
 * @example translatePlaceholders("SELECT 1 WHERE a = %(value)s", "postgres").text // "SELECT 1 WHERE a = $1"
 */
export function translatePlaceholders(sql: string, dialect: SqlDialect): TranslatedSql {
  const pg = dialect === "postgres";
  const order: string[] = [];
  const parameters: string[] = [];
  let out = "";
  let copied = 0;
  let i = 0;
  // the previous character decides whether E'…' is an escape string or an identifier ending in e
  const prevIsIdent = (k: number): boolean => k > 0 && IDENT_PART.test(sql[k - 1]!);
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'") {
      const escapes = pg ? (sql[i - 1] === "E" || sql[i - 1] === "e") && !prevIsIdent(i - 1) : true;
      i = skipQuoted(sql, i, "'", escapes, "string literal");
    } else if (c === '"') {
      i = pg ? skipQuoted(sql, i, '"', false, "quoted identifier") : skipQuoted(sql, i, '"', true, "string literal");
    } else if (c === "`" && !pg) {
      i = skipQuoted(sql, i, "`", false, "quoted identifier");
    } else if (c === "-" && sql[i + 1] === "-" && (pg || /[\s]/.test(sql[i + 2] ?? " "))) {
      i = skipLine(sql, i);
    } else if (c === "#" && !pg) {
      i = skipLine(sql, i);
    } else if (c === "/" && sql[i + 1] === "*") {
      if (!pg && (sql[i + 2] === "!" || sql.startsWith("M!", i + 2))) throw invalid("mysql executable comments (`/*!`) are not allowed");
      i = skipBlockComment(sql, i, pg);
    } else if (c === "$" && pg) {
      if (/[0-9]/.test(sql[i + 1] ?? "")) throw invalid("positional parameters (`$1`) are not allowed: use `%(name)s`");
      const tag = prevIsIdent(i) ? null : dollarTag(sql, i);
      if (tag === null) { i++; continue; }
      const end = sql.indexOf(tag, i + tag.length);
      if (end === -1) throw invalid("unterminated dollar-quoted string");
      i = end + tag.length;
    } else if (c === "?" && !pg) {
      throw invalid("positional parameters (`?`) are not allowed: use `%(name)s`");
    } else if (c === "%" && sql[i + 1] === "(") {
      const m = NAME.exec(sql.slice(i + 2));
      if (m === null || !sql.startsWith(")s", i + 2 + m[0].length)) {
        throw invalid("malformed placeholder: write `%(name)s` (a name of letters, digits and underscores)");
      }
      const name = m[0];
      let index = parameters.indexOf(name);
      if (index === -1) { parameters.push(name); index = parameters.length - 1; }
      out += sql.slice(copied, i);
      if (pg) {
        out += `$${index + 1}`;
      } else {
        out += "?";
        order.push(name);
      }
      i += 2 + name.length + 2;
      copied = i;
    } else {
      i++;
    }
  }
  out += sql.slice(copied);
  return { text: out, order: pg ? parameters : order, parameters };
}
