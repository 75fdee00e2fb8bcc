import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { analyzePolicy, type PolicyAnalysis, type PolicyIssue } from "../../checks/load.js";
import { type Policy, policySchema } from "../../checks/policy.js";
import { TesseraError, UsageError } from "../../platform/errors.js";
import { parse } from "../args.js";
import type { BindingSource, CheckBinding } from "../../checks/bindings.js";
import { jsonOut, printable, styles, table } from "../../platform/format.js";
import type { ConnectReport } from "../../checks/lint-connect.js";
import { type Command, EXIT, type Io } from "../io.js";

/** The policy file's JSON Schema (draft 2020-12), for editors; checks beyond the schema live in the loader. */
export function policyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(policySchema, { io: "input" }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    $id: "https://tessera.dev/schemas/policy-v1.json",
    title: "Tessera policy",
    description:
      "Grounding checks on tool calls (specs/policy.md). `tessera policy lint` checks what a schema cannot: sources exist, SQL is one read-only statement, placeholder syntax.",
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  };
}

/** Warnings from SQLite's query plans: a missing database file, a query that cannot be prepared, a full scan. */
async function sqlitePlans(policy: Policy, lineOf: PolicyAnalysis["lineOf"], connect: boolean): Promise<PolicyIssue[]> {
  const sqlite = Object.entries(policy.sources).filter(([, s]) => s.kind === "sqlite");
  if (sqlite.length === 0) return [];
  const { sqliteFullScans } = await import("../../sources/sqlite.js");
  const out: PolicyIssue[] = [];
  const missing = new Set<string>();
  for (const [name, s] of sqlite) {
    if (!existsSync((s as { path: string }).path)) {
      missing.add(name);
      // --connect reports it as an error of its own
      if (!connect)
        out.push({
          severity: "warning",
          code: "sqlite_missing",
          path: `sources.${name}.path`,
          line: lineOf(["sources", name], "path"),
          message: `database file \`${(s as { path: string }).path}\` does not exist (yet)`,
        });
    }
  }
  for (const [tool, tp] of Object.entries(policy.tools)) {
    for (const [arg, ap] of Object.entries(tp.arguments)) {
      ap.ground.checks.forEach((c, i) => {
        const source = policy.sources[c.source];
        if (source?.kind !== "sqlite" || missing.has(c.source) || c.query === undefined) return;
        const at: (string | number)[] = ["tools", tool, "arguments", arg, "ground", "checks", i];
        const where = { path: `${at.slice(0, -1).join(".")}[${i}].query`, line: lineOf(at, "query") };
        try {
          for (const table of sqliteFullScans(source.path, c.query)) {
            out.push({
              severity: "warning",
              code: "sqlite_full_scan",
              ...where,
              message: `the query scans \`${table}\` without an index, so every decision reads the whole table (adr/0005)`,
            });
          }
        } catch (err) {
          if (connect) return; // --connect reports it as an error
          out.push({
            severity: "warning",
            code: "sqlite_invalid_query",
            ...where,
            message: `\`${c.source}\` cannot prepare the query: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
          });
        }
      });
    }
  }
  return out;
}

const FROM: Readonly<Record<BindingSource, string>> = {
  value: "the grounded argument",
  context: "trusted context (the host)",
  argument: "the call's argument (the agent)",
};

/** Where each name each check binds comes from (adr/0046). */
function bindingTable(bindings: readonly CheckBinding[]): string {
  const rows = bindings.map((b) => [
    `${b.tool}.${b.argument}[${b.check}]`,
    b.name,
    b.via === "placeholder" ? "request" : "match",
    FROM[b.from],
  ]);
  return table(["check", "binds", "in", "from"], rows);
}

/** `--connect`: describe every request on its live Source (adr/0127). */
async function connectIssues(policy: Policy, lineOf: PolicyAnalysis["lineOf"]): Promise<ConnectReport> {
  const [{ connectLint }, { registryOpener }] = await Promise.all([
    import("../../checks/lint-connect.js"),
    import("../../gate.js"),
  ]);
  return connectLint(policy, registryOpener(policy), lineOf);
}

async function lint(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: "boolean" }, connect: { type: "boolean" } }, true);
  if (positionals.length !== 1) throw new UsageError("usage: tessera policy lint <file> [--json] [--connect]");
  const file = positionals[0]!;
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new TesseraError("policy_unreadable", `no such policy file \`${file}\``);
  }
  const analysis = analyzePolicy(text, file, { env: io.env, baseDir: dirname(path) });
  const { policy } = analysis;
  const connect = values.connect === true;
  const report = policy !== null && connect ? await connectIssues(policy, analysis.lineOf) : null;
  const issues =
    policy === null
      ? analysis.issues
      : [...analysis.issues, ...(await sqlitePlans(policy, analysis.lineOf, connect)), ...(report?.issues ?? [])].sort(
          (a, b) => (a.line ?? Infinity) - (b.line ?? Infinity),
        );
  const errors = issues.filter((i) => i.severity === "error").length;
  const warnings = issues.length - errors;
  if (values.json) {
    io.stdout.write(
      jsonOut({
        file,
        valid: policy !== null,
        digest: policy?.digest ?? null,
        errors,
        warnings,
        issues,
        bindings: analysis.bindings,
        ...(connect ? { sources: report?.sources ?? [] } : {}),
      }),
    );
  } else {
    const s = styles(io);
    const line = (i: PolicyIssue) =>
      `${file}${i.line !== null ? `:${i.line}` : ""}: ${i.severity === "error" ? s.red("error") : s.yellow("warning")}: ${i.path ? `${i.path}: ` : ""}${i.message} ${s.dim(`[${i.code}]`)}`;
    for (const i of issues) io.stdout.write(`${line(i)}\n`);
    if (analysis.bindings.length > 0) io.stdout.write(`${bindingTable(analysis.bindings)}\n`);
    for (const c of report?.sources ?? [])
      io.stdout.write(
        `source \`${c.source}\` (${c.kind}, ${c.requests} request${c.requests === 1 ? "" : "s"}): ${c.status.replace("_", " ")}: ${printable(c.detail)}\n`,
      );
    io.stdout.write(
      `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}${policy !== null ? s.dim(`  ${policy.digest}`) : ""}\n`,
    );
  }
  if (errors === 0) return EXIT.ok;
  // only Sources that could not be reached: the lint could not be made, exit 4 as for a check
  const unreachableOnly = issues.every((i) => i.severity !== "error" || i.code === "connect_failed");
  return unreachableOnly ? EXIT.unavailable : EXIT.usage;
}

/** `tessera policy lint <file>` and `tessera policy schema`. */
export const policy: Command = {
  name: "policy",
  summary: "lint a policy file, or print its JSON Schema",
  usage:
    "usage: tessera policy lint <file> [--json] [--connect]    report every error and warning (exit 2 on an error)\n" +
    "       tessera policy schema                             print the policy JSON Schema for editors\n\n" +
    "  --json       with lint: print the LintReport\n" +
    "  --connect    with lint: open each Source read-only and prepare each request without running it\n" +
    "               (exit 4 when the only errors are Sources that cannot be reached)",
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === "lint") return lint(rest, io);
    if (sub === "schema") {
      parse(rest, {});
      io.stdout.write(jsonOut(policyJsonSchema()));
      return EXIT.ok;
    }
    throw new UsageError(
      sub === undefined
        ? "missing subcommand: `lint` or `schema`"
        : `unknown subcommand \`${sub}\`: expected \`lint\` or \`schema\``,
    );
  },
};
