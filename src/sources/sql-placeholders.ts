/**
 * `%(name)s` placeholders in SQL, found in the code segments of the shared lexer
 * (`src/checks/sql-tokens.ts`, the one policy lint uses), so a placeholder-looking text inside a
 * literal, quoted identifier or comment is left alone. Postgres gets `$n` (one per distinct name),
 * MySQL gets `?` (one per occurrence).
 * @module
 */
import { SourceError } from "../checks/source.js";
import type { Scalar } from "../core/index.js";
import { lexSql } from "../checks/sql-tokens.js";
import { positional } from "./adapter-util.js";

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

function invalid(message: string): SourceError {
  return new SourceError("source_invalid_query", message);
}

/**
 * Replace every `%(name)s` outside literals, identifiers and comments. Throws
 * `SourceError("source_invalid_query")` for an unterminated literal or comment, a malformed
 * `%(`, a positional marker written by hand (`$1`, `?`) or a MySQL executable comment.
 * @example translatePlaceholders("SELECT 1 WHERE a = %(value)s", "postgres").text // "SELECT 1 WHERE a = $1"
 */
export function translatePlaceholders(sql: string, dialect: SqlDialect): TranslatedSql {
  const pg = dialect === "postgres";
  const lexed = lexSql(sql, dialect);
  if (lexed.error !== null) throw invalid(lexed.error);
  const order: string[] = [];
  const parameters: string[] = [];
  let out = "";
  let copied = 0;
  for (const seg of lexed.segments) {
    if (seg.kind !== "code") continue;
    for (let i = seg.start; i < seg.end; i++) {
      const c = sql[i]!;
      if (c === "$" && pg && /[0-9]/.test(sql[i + 1] ?? ""))
        throw invalid("positional parameters (`$1`) are not allowed: use `%(name)s`");
      if (c === "?" && !pg) throw invalid("positional parameters (`?`) are not allowed: use `%(name)s`");
      if (c !== "%" || sql[i + 1] !== "(") continue;
      const m = NAME.exec(sql.slice(i + 2, seg.end));
      if (m === null || !sql.startsWith(")s", i + 2 + m[0].length) || i + 4 + m[0].length > seg.end) {
        throw invalid("malformed placeholder: write `%(name)s` (a name of letters, digits and underscores)");
      }
      const name = m[0];
      let index = parameters.indexOf(name);
      if (index === -1) {
        parameters.push(name);
        index = parameters.length - 1;
      }
      out += sql.slice(copied, i);
      if (pg) {
        out += `$${index + 1}`;
      } else {
        out += "?";
        order.push(name);
      }
      i += 3 + name.length; // the loop's i++ steps past the closing `s`
      copied = i + 1;
    }
  }
  out += sql.slice(copied);
  return { text: out, order: pg ? parameters : order, parameters };
}

/** A check's query compiled once for a pooled SQL driver: its text and how to bind it. */
export interface CompiledSql extends TranslatedSql {
  /** The bound values in positional order, as the driver takes them: a bigint as its exact digits. */
  values(params: Readonly<Record<string, Scalar>>): (string | number | boolean | null)[];
}

/**
 * Compile a Postgres or MySQL check's query for source `source`: a blank query, and every error
 * `translatePlaceholders` finds, is `source_invalid_query`.
 */
export function compileSql(source: string, query: string, dialect: SqlDialect): CompiledSql {
  if (query.trim() === "") throw invalid(`source \`${source}\`: a ${dialect} check needs a \`query\``);
  const sql = translatePlaceholders(query, dialect);
  return {
    ...sql,
    values: (params) => positional(sql.order, params).map((v) => (typeof v === "bigint" ? v.toString() : v)),
  };
}
