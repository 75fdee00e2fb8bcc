/**
 * Static checks of a check's request, by source kind: SQL is one read-only statement, placeholders
 * use the adapter's syntax, and none hides inside a quoted literal. Used by the loader (errors) and
 * by `tessera policy lint`; adapters may use `placeholdersOf` to find their parameter names.
 * @module
 */
import { isSqlKind, type SourceKindName } from "./source-kinds.js";
import { lexSql, type SqlDialect, type SqlSegment } from "./sql-tokens.js";

/**
 * A check's request as written, before it is known to fit its source's kind: at most one of
 * `query`, `path` and `tool` is meant to be there. A loaded policy holds it as a `CheckRequest`.
 */
export interface WrittenRequest {
  readonly query?: string | undefined;
  readonly path?: string | undefined;
  readonly tool?: string | undefined;
  readonly arguments?: Readonly<Record<string, unknown>> | undefined;
}

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
  /\b(insert|update|delete|merge|upsert|replace\s+into|create|drop|alter|attach|detach|pragma|vacuum|reindex|grant|revoke|truncate|copy|into|outfile|dumpfile)\b/i;

/**
 * Functions with effects beyond the rows they return, per dialect: locks that outlive the check's
 * transaction, statistics resets, session settings, files, server control, and functions that run
 * SQL given as text (which lint cannot read). specs/policy.md pins this list. Lint refuses a call
 * to any of them however it is spelled; the Source's database role remains the real boundary.
 */
export const SIDE_EFFECT_FUNCTIONS: Readonly<Record<SqlDialect, readonly string[]>> = {
  postgres: [
    "pg_advisory_lock",
    "pg_advisory_lock_shared",
    "pg_try_advisory_lock",
    "pg_try_advisory_lock_shared",
    "pg_advisory_xact_lock",
    "pg_advisory_xact_lock_shared",
    "pg_try_advisory_xact_lock",
    "pg_try_advisory_xact_lock_shared",
    "pg_advisory_unlock",
    "pg_advisory_unlock_shared",
    "pg_advisory_unlock_all",
    "pg_stat_reset",
    "pg_stat_reset_shared",
    "pg_stat_reset_single_table_counters",
    "pg_stat_reset_single_function_counters",
    "pg_stat_reset_slru",
    "pg_stat_reset_replication_slot",
    "pg_stat_reset_subscription_stats",
    "pg_stat_statements_reset",
    "set_config",
    "nextval",
    "setval",
    "pg_notify",
    "pg_cancel_backend",
    "pg_terminate_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_switch_wal",
    "pg_create_restore_point",
    "pg_backup_start",
    "pg_backup_stop",
    "pg_start_backup",
    "pg_stop_backup",
    "pg_promote",
    "pg_wal_replay_pause",
    "pg_wal_replay_resume",
    "pg_log_backend_memory_contexts",
    "pg_create_physical_replication_slot",
    "pg_create_logical_replication_slot",
    "pg_drop_replication_slot",
    "pg_copy_physical_replication_slot",
    "pg_copy_logical_replication_slot",
    "pg_replication_slot_advance",
    "pg_logical_slot_get_changes",
    "pg_logical_slot_get_binary_changes",
    "pg_logical_emit_message",
    "pg_replication_origin_create",
    "pg_replication_origin_drop",
    "pg_replication_origin_advance",
    "pg_replication_origin_session_setup",
    "pg_replication_origin_session_reset",
    "pg_replication_origin_xact_setup",
    "pg_replication_origin_xact_reset",
    "lo_import",
    "lo_export",
    "lo_create",
    "lo_creat",
    "lo_unlink",
    "lo_put",
    "lo_from_bytea",
    "lo_truncate",
    "lowrite",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_file_write",
    "pg_file_rename",
    "pg_file_unlink",
    "query_to_xml",
    "query_to_xmlschema",
    "query_to_xml_and_xmlschema",
    "cursor_to_xml",
    "ts_stat",
    "dblink",
    "dblink_exec",
    "dblink_connect",
    "dblink_connect_u",
    "dblink_send_query",
    "dblink_open",
    "crosstab",
    "connectby",
  ],
  mysql: [
    "get_lock",
    "release_lock",
    "release_all_locks",
    "load_file",
    "last_insert_id",
    "nextval",
    "setval",
    "sys_exec",
    "sys_eval",
  ],
  sqlite: ["load_extension", "writefile", "readfile", "edit", "fts3_tokenizer"],
};

const DENIED: Readonly<Record<SqlDialect, ReadonlySet<string>>> = {
  postgres: new Set(SIDE_EFFECT_FUNCTIONS.postgres),
  mysql: new Set(SIDE_EFFECT_FUNCTIONS.mysql),
  sqlite: new Set(SIDE_EFFECT_FUNCTIONS.sqlite),
};

/** Postgres `U&"…"` identifier text with its escapes decoded (`\0061`, `\+000061`, a doubled escape). */
function decodeUnicodeIdentifier(body: string, esc: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== esc) {
      out += body[i];
      continue;
    }
    if (body[i + 1] === esc) {
      out += esc;
      i++;
      continue;
    }
    const long = body[i + 1] === "+";
    const hex = body.slice(long ? i + 2 : i + 1, long ? i + 8 : i + 5);
    if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (long ? 6 : 4)) return body; // postgres refuses it
    const cp = Number.parseInt(hex, 16);
    if (cp > 0x10ffff) return body;
    out += String.fromCodePoint(cp);
    i += long ? 7 : 4;
  }
  return out;
}

/** The name a quoted identifier segment stands for, without its quotes. */
function unquote(text: string): string {
  const q = text[0]!;
  const body = text.slice(1, -1);
  if (q === "[") return body;
  return body.split(q + q).join(q);
}

/**
 * The first deny-listed function the query calls, as `name`, or null: any name — bare, quoted,
 * schema-qualified, `U&`-escaped, in any case — followed by `(` with only whitespace and comments
 * between. Strings and comments never count, so `get_lock_time` or `'get_lock('` is no call.
 */
export function sideEffectCall(sql: string, dialect: SqlDialect, segments: readonly SqlSegment[]): string | null {
  // the tokens that matter: names, `(`, and anything else as a separator
  const tokens: ({ readonly name: string } | "(" | "other")[] = [];
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k]!;
    const text = sql.slice(seg.start, seg.end);
    if (seg.kind === "comment") continue;
    if (seg.kind === "code") {
      for (const m of text.matchAll(/[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*|\S/g)) {
        const t = m[0];
        if (t === "(") tokens.push("(");
        else if (/^[A-Za-z_\u0080-\uffff]/.test(t)) tokens.push({ name: t });
        else tokens.push("other");
      }
      continue;
    }
    if (seg.kind === "identifier") {
      let name = unquote(text);
      if (dialect === "postgres" && /(^|[^A-Za-z0-9_$])[Uu]&$/.test(sql.slice(Math.max(0, seg.start - 3), seg.start))) {
        tokens.pop(); // the `&` token before the quote
        tokens.pop(); // the `U` token
        // an optional `UESCAPE 'c'` follows, with only whitespace and comments between
        let esc = "\\";
        let code = "";
        let j = k + 1;
        while (j < segments.length && (segments[j]!.kind === "code" || segments[j]!.kind === "comment")) {
          if (segments[j]!.kind === "code") code += sql.slice(segments[j]!.start, segments[j]!.end);
          if (code.trim() !== "" && !/^\s*uescape\s*$/i.test(code)) break;
          j++;
        }
        const lit = segments[j];
        if (/^\s*uescape\s*$/i.test(code) && lit?.kind === "string" && lit.body?.length === 1) {
          esc = lit.body;
          k = j;
        }
        name = decodeUnicodeIdentifier(name, esc);
      }
      tokens.push({ name });
      continue;
    }
    // in MySQL under ANSI_QUOTES a "…" string is an identifier: read it as a name too
    if (dialect === "mysql" && seg.kind === "string" && text.startsWith('"')) tokens.push({ name: seg.body ?? "" });
    else tokens.push("other");
  }
  for (let i = 0; i + 1 < tokens.length; i++) {
    const t = tokens[i]!;
    if (typeof t === "object" && tokens[i + 1] === "(" && DENIED[dialect].has(t.name.toLowerCase()))
      return t.name.toLowerCase();
  }
  return null;
}

function sqlScan(query: string, dialect: SqlDialect): RequestScan {
  const problems: RequestProblem[] = [];
  const { segments } = lexSql(query, dialect);
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
    const call = sideEffectCall(query, dialect, segments);
    if (call !== null)
      problems.push({
        severity: "error",
        code: "sql_not_read_only",
        key: "query",
        message: `a query must be read-only; \`${call}()\` has side effects and is not allowed`,
      });
    // a MySQL session variable assigned in a query outlives it on the pooled connection
    if (dialect === "mysql" && code.includes(":="))
      problems.push({
        severity: "error",
        code: "sql_not_read_only",
        key: "query",
        message: "a query must be read-only; `:=` assigns a session variable and is not allowed",
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
export function placeholdersOf(kind: SourceKindName, request: WrittenRequest): RequestScan {
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
  // `given` is the first of query, path and tool the request has, and the one the kind needs
  if (isSqlKind(kind)) return sqlScan(request.query ?? "", kind);
  const names: string[] = [];
  const problems: RequestProblem[] = [];
  if (kind === "http") braceNames(request.path ?? "", "path", names, problems);
  else walkArguments(request.arguments ?? {}, names, problems);
  return { names, problems };
}
