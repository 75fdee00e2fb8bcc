/**
 * Static checks of a check's request, by source kind: SQL is one read-only statement, placeholders
 * use the adapter's syntax, and none hides inside a quoted literal. Used by the loader (errors) and
 * by `tessera policy lint`; adapters may use `placeholdersOf` to find their parameter names.
 * @module
 */
import type { SourceKindName } from "./policy.js";
import type { CheckRequest } from "./source.js";
import { lexSql, type SqlDialect } from "./sql-tokens.js";

/** A problem found in a request: an error stops loading, a warning only lint reports. */
export interface RequestProblem {
  readonly severity: "error" | "warning";
  readonly code:
    | "sql_not_read_only"
    | "sql_many_statements"
    | "placeholder_syntax"
    | "placeholder_quoted"
    | "request_kind"
    | "sql_syntax";
  /** The request key the problem is in: `query`, `path`, `tool` or `arguments`. */
  readonly key: string;
  readonly message: string;
}

/** What a request binds: placeholder names in order of first appearance, and its problems. */
export interface RequestScan {
  readonly names: readonly string[];
  readonly problems: readonly RequestProblem[];
}

/**
 * SQL split by the shared lexer (sql-tokens.ts) into code (literals, quoted identifiers and
 * comments blanked to spaces) and the string literals' bodies; `error` when the lexer refused it.
 */
export function splitSql(sql: string, dialect: SqlDialect): { code: string; literals: string[]; error: string | null } {
  const { segments, error } = lexSql(sql, dialect);
  let code = "";
  const literals: string[] = [];
  for (const seg of segments) {
    if (seg.kind === "code") code += sql.slice(seg.start, seg.end);
    else code += " ".repeat(seg.end - seg.start);
    if ((seg.kind === "string" || seg.kind === "dollar") && seg.body !== undefined) literals.push(seg.body);
  }
  return { code, literals, error };
}

const WRITE_WORDS =
  /\b(insert|update|delete|merge|upsert|replace\s+into|create|drop|alter|attach|detach|pragma|vacuum|reindex|grant|revoke|truncate|copy|into|load_file|outfile|dumpfile)\b/i;

function sqlScan(query: string, dialect: SqlDialect): RequestScan {
  const problems: RequestProblem[] = [];
  const { code, literals, error } = splitSql(query, dialect);
  if (error !== null)
    problems.push({ severity: "error", code: "sql_syntax", key: "query", message: `${dialect} query: ${error}` });
  const body = code.trim().replace(/;\s*$/, "");
  if (body.includes(";"))
    problems.push({
      severity: "error",
      code: "sql_many_statements",
      key: "query",
      message: "a query must be one statement",
    });
  const first = /^\(*\s*([A-Za-z]+)/.exec(body)?.[1]?.toLowerCase();
  if (first !== "select" && first !== "with") {
    problems.push({
      severity: "error",
      code: "sql_not_read_only",
      key: "query",
      message: `a query must be one read-only \`SELECT\` or \`WITH\` statement, got \`${first ?? ""}\``,
    });
  } else {
    const w = WRITE_WORDS.exec(body);
    if (w !== null)
      problems.push({
        severity: "error",
        code: "sql_not_read_only",
        key: "query",
        message: `a query must be read-only; \`${w[1]!.toUpperCase()}\` is not allowed`,
      });
  }
  const names: string[] = [];
  const add = (name: string) => {
    if (!names.includes(name)) names.push(name);
  };
  if (dialect === "sqlite") {
    for (const m of code.matchAll(/(^|[^:A-Za-z0-9_]):([A-Za-z_][A-Za-z0-9_]*)/g)) add(m[2]!);
    const other = /(\?\d*|[@$][A-Za-z_][A-Za-z0-9_]*)/.exec(code);
    if (other !== null) {
      problems.push({
        severity: "error",
        code: "placeholder_syntax",
        key: "query",
        message: `sqlite queries bind by name as \`:name\`; \`${other[1]}\` is not supported`,
      });
    }
  } else {
    for (const m of code.matchAll(/%\(([^)]*)\)(.?)/g)) {
      const [, name = "", conv = ""] = m;
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || conv !== "s") {
        problems.push({
          severity: "error",
          code: "placeholder_syntax",
          key: "query",
          message: `${dialect} placeholders are written \`%(name)s\`; got \`${m[0]}\``,
        });
      } else {
        add(name);
      }
    }
    // `?` is a positional marker in MySQL but a JSON operator in Postgres (`data ? 'key'`)
    const other = dialect === "postgres" ? /(\$\d+)/.exec(code) : /(\?)/.exec(code);
    if (other !== null) {
      problems.push({
        severity: "error",
        code: "placeholder_syntax",
        key: "query",
        message: `${dialect} queries bind by name as \`%(name)s\`; \`${other[1]}\` is not supported`,
      });
    }
  }
  const quoted = dialect === "sqlite" ? /:[A-Za-z_][A-Za-z0-9_]*/ : /%\([A-Za-z_][A-Za-z0-9_]*\)s/;
  for (const lit of literals) {
    const m = quoted.exec(lit);
    if (m !== null) {
      problems.push({
        severity: "error",
        code: "placeholder_quoted",
        key: "query",
        message: `placeholder \`${m[0]}\` is inside a quoted literal, so it is compared as text and never bound; remove the quotes`,
      });
    }
  }
  return { names, problems };
}

const BRACE = /\{([^{}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function braceNames(text: string, key: string, names: string[], problems: RequestProblem[]): void {
  for (const m of text.matchAll(BRACE)) {
    const name = m[1]!;
    if (!NAME.test(name)) {
      problems.push({
        severity: "error",
        code: "placeholder_syntax",
        key,
        message: `placeholders are written \`{name}\`; got \`${m[0]}\``,
      });
    } else if (!names.includes(name)) {
      names.push(name);
    }
  }
}

function walkArguments(v: unknown, names: string[], problems: RequestProblem[]): void {
  if (typeof v === "string") braceNames(v, "arguments", names, problems);
  else if (Array.isArray(v)) for (const x of v) walkArguments(x, names, problems);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) walkArguments(x, names, problems);
}

/** The request key each source kind needs. */
export const REQUEST_KEY: Readonly<Record<SourceKindName, "query" | "path" | "tool">> = {
  sqlite: "query",
  postgres: "query",
  mysql: "query",
  http: "path",
  mcp: "tool",
};

/**
 * Placeholder names a request binds and the problems in it, for a source of `kind`.
 * @example placeholdersOf("sqlite", { query: "SELECT 1 FROM t WHERE id = :value" }).names // ["value"]
 */
export function placeholdersOf(kind: SourceKindName, request: CheckRequest): RequestScan {
  const want = REQUEST_KEY[kind];
  const given = (["query", "path", "tool"] as const).find((k) => request[k] !== undefined);
  if (given !== want) {
    return {
      names: [],
      problems: [
        {
          severity: "error",
          code: "request_kind",
          key: given ?? want,
          message: `a ${kind} source needs \`${want}\`, not \`${given ?? "nothing"}\``,
        },
      ],
    };
  }
  if (kind === "sqlite" || kind === "postgres" || kind === "mysql") return sqlScan(request.query!, kind);
  const names: string[] = [];
  const problems: RequestProblem[] = [];
  if (kind === "http") braceNames(request.path!, "path", names, problems);
  else walkArguments(request.arguments ?? {}, names, problems);
  return { names, problems };
}
