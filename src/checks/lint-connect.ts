/**
 * `tessera policy lint --connect` (adr/0127): open each Source the policy's checks use and ask it to
 * compile every request without running it. A request the Source refuses (a missing table or
 * column, a placeholder in another adapter's syntax) and a `match.column` the request does not
 * return are errors at the request's line; a Source that cannot be opened is an error at its own.
 * A Source kind that cannot describe a request without running it is reported as not checked.
 * @module
 */
import type { PolicyIssue } from "./load.js";
import type { OpenSource } from "./engine/source-pool.js";
import type { CheckPolicy, Policy } from "./policy.js";
import { splitSql } from "./requests.js";
import type { Source } from "./source.js";
import type { SqlDialect } from "./sql-tokens.js";

/** What `--connect` did with one Source. */
export interface ConnectedSource {
  readonly source: string;
  readonly kind: string;
  /** `checked` (every request described), `not_checked` (the kind cannot describe) or `unreachable`. */
  readonly status: "checked" | "not_checked" | "unreachable";
  /** What the Source checked, in its own words, or why nothing was. */
  readonly detail: string;
  /** How many check requests name this Source. */
  readonly requests: number;
}

/** The issues `--connect` found and what it did with each Source. */
export interface ConnectReport {
  readonly issues: readonly PolicyIssue[];
  readonly sources: readonly ConnectedSource[];
}

type LineOf = (path: readonly (string | number)[], key?: string) => number | null;

interface Located {
  readonly check: CheckPolicy;
  readonly at: readonly (string | number)[];
}

/** Source-kind syntax a query may have been written in by mistake, with the syntax it should use. */
const FOREIGN_MARKERS: Readonly<Record<SqlDialect, { readonly marker: RegExp; readonly hint: string }>> = {
  mysql: {
    marker: /\$\d+|(?<!:):[A-Za-z_]\w*/,
    hint: "mysql queries bind `%(name)s`, not Postgres's `$1` or SQLite's `:name`",
  },
  postgres: {
    marker: /\?|(?<!:):(?!:)[A-Za-z_]\w*/,
    hint: "postgres queries bind `%(name)s`, not MySQL's `?` or SQLite's `:name`",
  },
  sqlite: { marker: /%\(\w+\)s|\$\d+/, hint: "sqlite queries bind `:name`, not `%(name)s` or `$1`" },
};

/** The hint for a refused query written with another adapter's placeholder (outside literals and comments), or "". */
function foreignHint(kind: string, query: string): string {
  if (kind !== "mysql" && kind !== "postgres" && kind !== "sqlite") return "";
  const foreign = FOREIGN_MARKERS[kind];
  return foreign.marker.test(splitSql(query, kind).code) ? ` (${foreign.hint})` : "";
}

function checksBySource(policy: Policy): Map<string, Located[]> {
  const out = new Map<string, Located[]>();
  for (const [tool, tp] of Object.entries(policy.tools)) {
    for (const [arg, ap] of Object.entries(tp.arguments)) {
      ap.ground.checks.forEach((check, i) => {
        const list = out.get(check.source) ?? [];
        list.push({ check, at: ["tools", tool, "arguments", arg, "ground", "checks", i] });
        out.set(check.source, list);
      });
    }
  }
  return out;
}

function pathText(path: readonly (string | number)[]): string {
  let out = "";
  for (const s of path) out += typeof s === "number" ? `[${s}]` : out === "" ? s : `.${s}`;
  return out;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}

/** Describe one check's request and compare its columns with the check's `match` conditions. */
async function describeCheck(
  source: Source,
  kind: string,
  located: Located,
  lineOf: LineOf,
): Promise<{ issues: PolicyIssue[]; checked: string | null }> {
  const { check, at } = located;
  const key = check.query !== undefined ? "query" : check.path !== undefined ? "path" : "tool";
  const where = { path: pathText([...at, key]), line: lineOf(at, key) };
  let columns: readonly string[] | null;
  let checked: string;
  try {
    ({ columns, checked } = await source.describe!(check));
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const hint = code === "source_invalid_query" && check.query !== undefined ? foreignHint(kind, check.query) : "";
    const refused = code === "source_invalid_query";
    const issue: PolicyIssue = {
      severity: "error",
      code: refused ? "connect_query_invalid" : "connect_failed",
      ...where,
      message: refused
        ? `\`${check.source}\` refuses the request: ${messageOf(err)}${hint}`
        : `\`${check.source}\` could not describe the request: ${messageOf(err)}`,
    };
    return { issues: [issue], checked: null };
  }
  if (columns === null) return { issues: [], checked };
  const out: PolicyIssue[] = [];
  check.match.forEach((m, j) => {
    if (!("column" in m) || columns.includes(m.column)) return;
    const mat = [...at, "match", j];
    out.push({
      severity: "error",
      code: "connect_column_missing",
      path: pathText([...mat, "column"]),
      line: lineOf(mat, "column"),
      message: `the query does not return a column \`${m.column}\` (it returns ${columns.length === 0 ? "none" : columns.map((c) => `\`${c}\``).join(", ")})`,
    });
  });
  return { issues: out, checked };
}

/**
 * Open every Source the policy's checks name (through `open`, which the caller wires to the real
 * adapters) and describe each request without running it; every Source opened is closed again.
 */
export async function connectLint(policy: Policy, open: OpenSource, lineOf: LineOf): Promise<ConnectReport> {
  const issues: PolicyIssue[] = [];
  const sources: ConnectedSource[] = [];
  for (const [name, located] of checksBySource(policy)) {
    const config = policy.sources[name]!;
    const base = { source: name, kind: config.kind };
    const requests = located.length;
    let source: Source;
    try {
      source = await open(name, config);
    } catch (err) {
      issues.push({
        severity: "error",
        code: "connect_failed",
        path: `sources.${name}`,
        line: lineOf(["sources"], name),
        message: `cannot open \`${name}\`: ${messageOf(err)}`,
      });
      sources.push({ ...base, status: "unreachable", detail: messageOf(err), requests });
      continue;
    }
    try {
      if (source.describe === undefined) {
        const detail = `a ${config.kind} source cannot describe a request without sending it, so nothing was sent`;
        issues.push({
          severity: "warning",
          code: "connect_not_checked",
          path: `sources.${name}`,
          line: lineOf(["sources"], name),
          message: `\`${name}\` is not checked: ${detail}`,
        });
        sources.push({ ...base, status: "not_checked", detail, requests });
        continue;
      }
      let detail: string | null = null;
      let unreachable: string | null = null;
      for (const l of located) {
        const found = await describeCheck(source, config.kind, l, lineOf);
        issues.push(...found.issues);
        detail ??= found.checked;
        const failed = found.issues.find((i) => i.code === "connect_failed");
        if (failed !== undefined) unreachable ??= failed.message;
      }
      sources.push(
        unreachable !== null
          ? { ...base, status: "unreachable", detail: unreachable, requests }
          : { ...base, status: "checked", detail: detail ?? "described", requests },
      );
    } finally {
      await source.close().catch(() => undefined);
    }
  }
  return { issues, sources };
}
