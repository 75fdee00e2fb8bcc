import type { CheckReport, ConditionReport, Decision, ToolCall } from "../../checks/decision.js";
import { exitCodeFor } from "../../checks/decision.js";
import { loadPolicyCached } from "../../checks/policy-cache.js";
import { resolve } from "node:path";
import { TesseraError, UsageError } from "../../platform/errors.js";
import { parseJson } from "../../platform/json.js";
import { parse, required } from "../args.js";
import { readInputText } from "../input.js";
import { jsonOut, printable, type Styles, styles, table } from "../../platform/format.js";
import type { Command, Io } from "../io.js";
import { isObject } from "../../platform/objects.js";

/** Read and parse a JSON input (`-` is stdin); bad JSON is a one-line input error naming the file. */
async function readJson(what: "call" | "context", file: string, io: Io): Promise<unknown> {
  let text: string;
  const shown = file === "-" ? "stdin" : file;
  try {
    text = await readInputText(file, io);
  } catch {
    throw new TesseraError(`${what}_unreadable`, `no such ${what} file \`${file}\``);
  }
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof TesseraError) throw new TesseraError(`${what}_invalid`, `${shown}: ${err.message}`);
    const detail =
      err instanceof Error ? err.message.split("\n")[0]!.replace(/^./, (c) => c.toLowerCase()) : "invalid json";
    throw new TesseraError(`${what}_invalid`, `${shown}: ${what} is not valid json (${detail})`);
  }
}

/** A call must be exactly `{tool, arguments}`. */
export function validateCall(value: unknown, shown: string): ToolCall {
  if (!isObject(value))
    throw new TesseraError("call_invalid", `${shown}: a call is a json object \`{"tool": "...", "arguments": {...}}\``);
  for (const k of Object.keys(value)) {
    if (k !== "tool" && k !== "arguments")
      throw new TesseraError("call_invalid", `${shown}: unknown key "${k}" (a call has \`tool\` and \`arguments\`)`);
  }
  if (typeof value.tool !== "string" || value.tool === "")
    throw new TesseraError("call_invalid", `${shown}: tool: expected a non-empty string`);
  const args = value.arguments ?? {};
  if (!isObject(args)) throw new TesseraError("call_invalid", `${shown}: arguments: expected an object`);
  return { tool: value.tool, arguments: args };
}

/** Trusted context must be a JSON object; only its scalar fields are bound. */
export function validateContext(value: unknown, shown: string): Record<string, unknown> {
  if (!isObject(value))
    throw new TesseraError("context_invalid", `${shown}: trusted context is a json object of fields`);
  return value;
}

const OP_TEXT: Readonly<Record<string, string>> = {
  eq: "=",
  ne: "≠",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  in: "in",
  not_in: "not in",
};

function show(v: unknown): string {
  return printable(
    typeof v === "string" ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(show).join(", ")}]` : String(v),
  );
}

/** A condition as one readable phrase: `✗ customer_id = ctx.customer_id (not_equal)`. */
export function conditionPhrase(c: ConditionReport, s: Styles): string {
  const mark = c.ok ? s.green("✓") : s.red("✗");
  let text: string;
  if (typeof c.rows === "string") {
    text = `rows ${OP_TEXT[c.rows] ?? c.rows} ${show(c.value)}`;
  } else {
    const op = typeof c.op === "string" ? c.op : "eq";
    const operand =
      c.ctx !== undefined ? `ctx.${String(c.ctx)}` : c.arg !== undefined ? `arg.${String(c.arg)}` : show(c.value);
    text =
      op === "is_null" || op === "not_null"
        ? `${String(c.column)} ${op.replace("_", " ")}`
        : `${String(c.column)} ${OP_TEXT[op] ?? op} ${operand}`;
  }
  const why: string[] = [];
  if (c.code !== undefined) why.push(c.code);
  if (Object.hasOwn(c, "actual")) why.push(`got ${show(c.actual)}`);
  if (Object.hasOwn(c, "expected") && c.ctx !== undefined) why.push(`ctx ${show(c.expected)}`);
  if (Object.hasOwn(c, "expected") && c.arg !== undefined) why.push(`arg ${show(c.expected)}`);
  return `${mark} ${text}${why.length > 0 ? ` (${why.join(", ")})` : ""}`;
}

/** The decision as a table: one row per check, then any errors. */
export function renderDecision(d: Decision, s: Styles): string {
  const colour = d.decision === "allow" ? s.green : d.decision === "block" ? s.red : s.yellow;
  const outcome = (o: string) => (o === "allow" ? s.green(o) : o === "block" ? s.red(o) : s.yellow(o));
  const tool = printable(d.tool); // the agent names the tool
  let out = `${s.bold(colour(d.decision.toUpperCase()))}  ${tool}  ${s.dim(`policy ${d.policy_digest.slice(0, 19)}…`)}\n`;
  if (d.enforced === false)
    out += `${s.yellow("shadow mode")}: not enforced, the call is allowed (exit 0); this is what the policy decided\n`;
  if (d.reason === "tool_name_shadows")
    return `${out}\`${tool}\` is not a listed tool, but it folds to one (case, separators, invisible characters): a lenient dispatcher could run that tool\n`;
  if (d.reason === "unlisted_tool")
    return `${out}the policy does not list \`${tool}\`: \`defaults.unlisted_tools\` is ${d.decision}\n`;
  if (d.checks.length === 0) return `${out}no protected arguments\n`;
  const rows = d.checks.map((c: CheckReport) => [
    c.value !== undefined ? `${c.argument}=${show(c.value)}` : c.argument,
    String(c.check),
    c.source,
    c.status,
    outcome(c.outcome),
    String(c.attempts),
    c.rows === null ? "-" : String(c.rows),
    c.error !== undefined && c.conditions.length === 0
      ? s.red(c.error.code)
      : c.conditions.map((x) => conditionPhrase(x, s)).join("; "),
  ]);
  out += `\n${table(["argument", "check", "source", "status", "outcome", "attempts", "rows", "conditions"], rows)}`;
  const errors = d.checks.filter((c) => c.error !== undefined);
  if (errors.length > 0)
    out += `\n${errors.map((c) => `${c.argument}[${c.check}] ${s.red(c.error!.code)}: ${printable(c.error!.message)}`).join("\n")}\n`;
  return out;
}

/** `tessera check`: ground one tool call against a policy and print the decision. */
export const check: Command = {
  name: "check",
  summary: "ground a tool call's arguments against a policy: allow, block or hold",
  usage:
    "usage: tessera check --policy <file> --call <file|-> [--context <file>] [--json] [--explain values] [--audit <file>]\n\n" +
    "  --policy <file>     the policy (YAML)\n" +
    '  --call <file|->     the proposed call: {"tool": "...", "arguments": {...}} (- reads stdin)\n' +
    '  --context <file>    trusted context from the host: {"customer_id": "..."}\n' +
    "  --json              print exactly the decision JSON\n" +
    "  --explain values    include argument values and expected/actual values\n" +
    "  --audit <file>      append the decision to this audit log (SQLite)\n\n" +
    "exit codes: 0 allow (and every decision in shadow mode), 1 block, 3 hold, 2 usage, configuration or input error",
  async run(args, io) {
    const { values } = parse(args, {
      policy: { type: "string" },
      call: { type: "string" },
      context: { type: "string" },
      json: { type: "boolean" },
      explain: { type: "string" },
      audit: { type: "string" },
    });
    const policyFile = required(values.policy, "policy");
    const callFile = required(values.call, "call");
    if (values.explain !== undefined && values.explain !== "values")
      throw new UsageError(`\`--explain\` takes \`values\`, got \`${values.explain}\``);
    if (values.context === "-" && callFile === "-")
      throw new UsageError("`--call` and `--context` cannot both read stdin");
    // every input is validated before any source is opened
    const call = validateCall(await readJson("call", callFile, io), callFile === "-" ? "stdin" : callFile);
    const context =
      values.context === undefined
        ? {}
        : validateContext(
            await readJson("context", values.context, io),
            values.context === "-" ? "stdin" : values.context,
          );
    const policy = await loadPolicyCached(policyFile, { env: io.env, cwd: io.cwd });
    const { createGate } = await import("../../gate.js");
    const gate = createGate(policy, values.audit !== undefined ? { audit: resolve(io.cwd, values.audit) } : {});
    let decision: Decision;
    try {
      decision = await gate.check(call, context, values.explain === "values" ? { explain: "values" } : {});
    } finally {
      await gate.close();
    }
    io.stdout.write(values.json ? jsonOut(decision) : renderDecision(decision, styles(io)));
    return exitCodeFor(decision.decision, decision.enforced !== false);
  },
};
