/**
 * Policy loading: YAML → digest of the uninterpolated document (adr/0006) → `${VAR}` interpolation
 * → zod validation → cross-checks (sources, request syntax) → defaults and resolved paths. Every
 * problem carries the YAML path and line: `policy.yaml:14: tools.x...match[1]: unknown key "colum"`.
 * @module
 */
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import {
  isMap,
  isPair,
  isScalar as isYamlScalar,
  isSeq,
  LineCounter,
  type Node as YamlNode,
  parseDocument,
  visit,
} from "yaml";
import type { z } from "zod";
import { numberLiteralProblem, numberProblem } from "../core/numbers.js";
import type { PolicyIssueCode } from "../platform/error-codes.js";
import { TesseraError } from "../platform/errors.js";
import { digestOf } from "../platform/digest.js";
import { rememberInterpolated } from "./effective.js";
import {
  type CheckPolicy,
  type Policy,
  type PolicyDocument,
  policySchema,
  type RetryPolicy,
  type SourceConfig,
} from "./policy.js";
import { type BindingSource, bindingSource, type CheckBinding, contextNames } from "./bindings.js";
import { placeholdersOf, type RequestScan } from "./requests.js";
import type { CheckRequest } from "./source.js";
import { isObject } from "../platform/objects.js";

/** One problem in a policy file, with where it is. */
export interface PolicyIssue {
  readonly severity: "error" | "warning";
  /**
   * Stable snake_case code: `yaml_invalid`, `schema_invalid`, `env_missing`, `source_undefined`,
   * `sql_not_read_only`, …
   */
  readonly code: PolicyIssueCode;
  /** The YAML path (`tools.refund_order.arguments.order_id`), empty for the whole document. */
  readonly path: string;
  /** 1-based line, or null when the document has no such node. */
  readonly line: number | null;
  readonly message: string;
}

/** A policy that cannot be loaded; the message is `file:line: path: detail`. */
export class PolicyError extends TesseraError {
  /** The first error and every other issue found with it. */
  readonly issues: readonly PolicyIssue[];
  readonly file: string;

  constructor(file: string, issues: readonly PolicyIssue[]) {
    const first = issues.find((i) => i.severity === "error") ?? issues[0]!;
    super(first.code, formatIssue(file, first));
    this.name = "PolicyError";
    this.file = file;
    this.issues = issues;
  }
}

/** `file:line: path: message`, the one-line form of an issue. */
export function formatIssue(file: string, issue: PolicyIssue): string {
  return `${file}${issue.line !== null ? `:${issue.line}` : ""}: ${issue.path ? `${issue.path}: ` : ""}${issue.message}`;
}

/** Options for loading: the environment for `${VAR}` (default `process.env`). */
export interface LoadOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Folder a relative `file` is read from (default: the process's); messages still show `file` as given. */
  readonly cwd?: string;
}

/** The result of analysing a policy: the policy when it has no errors, and every issue (warnings included). */
export interface PolicyAnalysis {
  readonly policy: Policy | null;
  readonly issues: readonly PolicyIssue[];
  /** Where every name every check binds comes from (empty when the policy did not validate). */
  readonly bindings: readonly CheckBinding[];
  /** The 1-based line of the node at a YAML path (or of `key` inside it), for issues found later. */
  readonly lineOf: (path: readonly (string | number)[], key?: string) => number | null;
}

type Seg = string | number;

function pathText(path: readonly Seg[]): string {
  let out = "";
  for (const s of path) out += typeof s === "number" ? `[${s}]` : out === "" ? s : `.${s}`;
  return out;
}

/** Where each YAML path of one policy document stands: its 1-based line. */
class YamlLines {
  constructor(
    private readonly root: YamlNode | null,
    private readonly lines: LineCounter,
  ) {}

  /** Line of the node at `path`, or of the key `key` inside it; the nearest existing ancestor otherwise. */
  line(path: readonly Seg[], key?: string): number | null {
    let node: unknown = this.root;
    let at: number | undefined = (node as YamlNode | null)?.range?.[0];
    for (const seg of [...path, ...(key === undefined ? [] : [key])]) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isYamlScalar(p.key) && String(p.key.value) === String(seg));
        if (pair === undefined) break;
        const keyNode = pair.key as YamlNode;
        if (seg === key) {
          at = keyNode.range?.[0] ?? at;
          break;
        }
        node = pair.value;
        at = (pair.value as YamlNode | null)?.range?.[0] ?? keyNode.range?.[0] ?? at;
      } else if (isSeq(node) && typeof seg === "number") {
        const item = node.items[seg] as YamlNode | undefined;
        if (item === undefined) break;
        node = item;
        at = item.range?.[0] ?? at;
      } else {
        break;
      }
    }
    return at === undefined ? null : this.lines.linePos(at).line;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

function describeYamlValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return `string \`${v.length > 40 ? `${v.slice(0, 37)}...` : v}\``;
  return `${typeof v} \`${String(v)}\``;
}

const EXPECTED: Readonly<Record<string, string>> = { object: "a mapping", array: "a list", record: "a mapping" };

function zodIssues(error: z.ZodError, doc: unknown, loc: YamlLines): PolicyIssue[] {
  const out: PolicyIssue[] = [];
  // an unknown key explains the shape problem a refinement then reports at the same place: report it alone
  const unknownAt = new Set(
    error.issues.filter((i) => i.code === "unrecognized_keys").map((i) => JSON.stringify(i.path)),
  );
  for (const issue of error.issues) {
    if (issue.code === "custom" && unknownAt.has(JSON.stringify(issue.path))) continue;
    const path = issue.path.filter((s): s is Seg => typeof s === "string" || typeof s === "number");
    const value = valueAt(doc, path);
    const parent = path.slice(0, -1);
    const last = path[path.length - 1];
    const push = (p: readonly Seg[], message: string, key?: string) =>
      out.push({ severity: "error", code: "schema_invalid", path: pathText(p), line: loc.line(p, key), message });
    switch (issue.code) {
      case "unrecognized_keys":
        for (const k of issue.keys) push(path, `unknown key "${k}"`, k);
        break;
      case "invalid_type":
        if (value === undefined && typeof last === "string") push(parent, `missing key \`${last}\``);
        else push(path, `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeYamlValue(value)}`);
        break;
      case "invalid_union":
        if ("discriminator" in issue && issue.discriminator !== undefined) {
          const options = (issue as { options?: unknown[] }).options ?? [];
          const list = options.map((o) => `\`${String(o)}\``).join(", ");
          if (value === undefined) push(parent, `missing key \`${String(last)}\` (one of ${list})`);
          else push(path, `unknown ${String(last)} \`${String(value)}\`: expected one of ${list}`);
        } else {
          push(path, issue.message);
        }
        break;
      case "invalid_value":
        if (value === undefined && typeof last === "string") push(parent, `missing key \`${last}\``);
        else
          push(
            path,
            `expected ${issue.values.map((v) => `\`${String(v)}\``).join(" or ")}, got ${describeYamlValue(value)}`,
          );
        break;
      case "too_small":
        if (issue.origin === "array")
          push(
            path,
            issue.message.startsWith("Too small") ? `needs at least ${String(issue.minimum)} item` : issue.message,
          );
        else
          push(
            path,
            `must be ${issue.inclusive ? "at least" : "greater than"} ${String(issue.minimum)}, got ${describeYamlValue(value)}`,
          );
        break;
      case "too_big":
        push(path, `must be at most ${String(issue.maximum)}, got ${describeYamlValue(value)}`);
        break;
      default:
        push(path, issue.message.charAt(0).toLowerCase() + issue.message.slice(1).replace(/\.$/, ""));
    }
  }
  return out;
}

const VAR = /\$(\$?)\{([^}]*)\}/g;

function interpolate(
  v: unknown,
  env: LoadOptions["env"] & object,
  path: Seg[],
  issues: PolicyIssue[],
  loc: YamlLines,
): unknown {
  if (typeof v === "string") {
    return v.replace(VAR, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1);
      const at = { severity: "error" as const, path: pathText(path), line: loc.line(path) };
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        issues.push({
          ...at,
          code: "env_invalid",
          message: `\`\${${name}}\` is not a variable name (use \`$\${…}\` for a literal)`,
        });
        return whole;
      }
      const got = env[name];
      if (got === undefined) {
        issues.push({ ...at, code: "env_missing", message: `environment variable \`${name}\` is not set` });
        return "";
      }
      return got;
    });
  }
  if (Array.isArray(v)) return v.map((x, i) => interpolate(x, env, [...path, i], issues, loc));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = interpolate(x, env, [...path, k], issues, loc);
    return out;
  }
  return v;
}

const DECIMAL_LITERAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * Numbers YAML would round as it reads them (`order_id: 9007199254740993`): a literal compared with a
 * row must mean what it says.
 */
function inexactNumbers(doc: ReturnType<typeof parseDocument>, lines: LineCounter): PolicyIssue[] {
  const out: PolicyIssue[] = [];
  visit(doc, {
    Scalar(_key, node, ancestors) {
      if (typeof node.value !== "number") return;
      const source = node.source ?? String(node.value);
      const problem = DECIMAL_LITERAL.test(source) ? numberLiteralProblem(source) : numberProblem(node.value);
      if (problem === null) return;
      const path: Seg[] = [];
      let child: unknown = node;
      for (let i = ancestors.length - 1; i >= 0; i--) {
        const a = ancestors[i];
        if (isPair(a) && isYamlScalar(a.key)) path.unshift(String(a.key.value));
        else if (isSeq(a)) path.unshift(a.items.indexOf(child as never));
        child = a;
      }
      out.push({
        severity: "error",
        code: problem.code,
        path: pathText(path),
        line: node.range ? lines.linePos(node.range[0]).line : null,
        message: `${problem.message.replace(/; send it as a string$/, "")}; quote it to compare it as text`,
      });
    },
  });
  return out;
}

function resolveRetry(
  ...layers: ({ attempts?: number | undefined; on_error?: RetryPolicy["on_error"] | undefined } | undefined)[]
): RetryPolicy {
  let attempts = 0;
  let onError: RetryPolicy["on_error"] = "block";
  for (const l of [...layers].reverse()) {
    if (l?.attempts !== undefined) attempts = l.attempts;
    if (l?.on_error !== undefined) onError = l.on_error;
  }
  return { attempts, on_error: onError };
}

function resolveSource(s: SourceConfig, baseDir: string): SourceConfig {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  if (s.kind === "sqlite") return { ...s, path: abs(s.path) };
  if (s.kind === "mcp" && s.cwd !== undefined) return { ...s, cwd: abs(s.cwd) };
  return s;
}

/** A check as the policy schema read it, before defaults. */
type CheckInput = NonNullable<PolicyDocument["tools"][string]["arguments"][string]["ground"]>["checks"][number];

/**
 * Cross-check the document: sources named, requests fit for their source's kind, every name bound.
 * `scans` gets each check's placeholder scan, the only one a loaded policy's requests go through.
 */
function crossCheck(
  doc: PolicyDocument,
  loc: YamlLines,
  bindings: CheckBinding[],
  scans: Map<CheckInput, RequestScan>,
): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const at = (path: Seg[], key?: string) => ({
    path: pathText(key === undefined ? path : [...path, key]),
    line: loc.line(path, key),
  });
  const allowAt = (path: Seg[], retry: { on_error?: string | undefined } | undefined) => {
    if (retry?.on_error === "allow") {
      issues.push({
        severity: "warning",
        code: "on_error_allow",
        ...at([...path, "retry", "on_error"]),
        message: "`on_error: allow` fails open: an unreachable source lets the call through",
      });
    }
  };
  allowAt(["defaults"], doc.defaults?.retry);
  if (doc.defaults?.unlisted_tools === undefined) {
    issues.push({
      severity: "warning",
      code: "unlisted_tools_default",
      path: "",
      line: null,
      message:
        "`defaults.unlisted_tools` is not set, so tools the policy does not list are allowed; set it to `allow`, `hold` or `block` to say so",
    });
  }
  const context = new Set(contextNames(doc.context, doc.tools));
  for (const [tool, tp] of Object.entries(doc.tools)) {
    const listed = new Set(Object.keys(tp.arguments));
    const bound = new Set<string>();
    const undeclared = (name: string, what: string, where: { path: string; line: number | null }) =>
      issues.push({
        severity: "error",
        code: "binding_undeclared",
        ...where,
        message: `${what} names \`${name}\`, which is not \`value\`, a trusted context field or a listed argument of \`${tool}\`: declare it under \`context:\` if the host supplies it, or list it under \`tools.${tool}.arguments\` if the agent does`,
      });
    for (const [arg, ap] of Object.entries(tp.arguments)) {
      if (ap.ground === undefined) continue;
      const groundPath: Seg[] = ["tools", tool, "arguments", arg, "ground"];
      allowAt(groundPath, ap.ground.retry);
      ap.ground.checks.forEach((c, i) => {
        const cp: Seg[] = [...groundPath, "checks", i];
        allowAt(cp, c.retry);
        const src = Object.hasOwn(doc.sources, c.source) ? doc.sources[c.source] : undefined;
        if (src === undefined) {
          const names = Object.keys(doc.sources)
            .map((n) => `\`${n}\``)
            .join(", ");
          issues.push({
            severity: "error",
            code: "source_undefined",
            ...at(cp, "source"),
            message: `undefined source \`${c.source}\`${names ? ` (defined: ${names})` : ""}`,
          });
          return;
        }
        const scan = placeholdersOf(src.kind, c);
        scans.set(c, scan);
        for (const p of scan.problems)
          issues.push({ severity: p.severity, code: p.code, ...at(cp, p.key), message: p.message });
        const requestKey = src.kind === "http" ? "path" : src.kind === "mcp" ? "arguments" : "query";
        const record = (name: string, from: BindingSource, via: CheckBinding["via"]) => {
          if (!bindings.some((b) => b.tool === tool && b.argument === arg && b.check === i && b.name === name)) {
            bindings.push({ tool, argument: arg, check: i, name, from, via });
          }
        };
        for (const name of scan.names) {
          const from = bindingSource(name, context, listed);
          if (from === null) undeclared(name, "a placeholder", at(cp, requestKey));
          else record(name, from, "placeholder");
          if (from === "argument") bound.add(name);
        }
        c.match.forEach((m, j) => {
          if ("ctx" in m) record(m.ctx, "context", "condition");
          if (!("arg" in m)) return;
          const from = bindingSource(m.arg, context, listed);
          if (from !== null) record(m.arg, from, "condition");
          if (from === null) undeclared(m.arg, "a condition", at([...cp, "match", j], "arg"));
          if (from === "argument") bound.add(m.arg);
          if (from === "context") {
            issues.push({
              severity: "warning",
              code: "arg_reads_context",
              ...at([...cp, "match", j], "arg"),
              message: `\`arg: ${m.arg}\` reads the trusted context field \`${m.arg}\`, not the agent's argument; write \`ctx: ${m.arg}\` to say so`,
            });
          }
        });
      });
    }
    for (const [arg, ap] of Object.entries(tp.arguments)) {
      if (ap.ground !== undefined || bound.has(arg)) continue;
      issues.push({
        severity: "warning",
        code: "argument_unused",
        ...at(["tools", tool, "arguments", arg]),
        message: `\`${arg}\` has no checks and no check of \`${tool}\` binds it`,
      });
    }
  }
  return issues;
}

/** A check's request in the shape its source's kind takes; a SQL query keeps the names its scan found. */
function requestOf(c: CheckInput, scan: RequestScan | undefined): CheckRequest {
  if (c.query !== undefined)
    return scan === undefined ? { query: c.query } : { query: c.query, placeholders: scan.names };
  if (c.path !== undefined) return { path: c.path };
  if (c.tool !== undefined)
    return c.arguments === undefined ? { tool: c.tool } : { tool: c.tool, arguments: c.arguments };
  // the schema refuses a check without one of them
  throw new TesseraError("policy_invalid", "a check needs exactly one of `query`, `path` and `tool`");
}

function build(
  doc: PolicyDocument,
  digest: string,
  file: string,
  baseDir: string,
  scans: ReadonlyMap<CheckInput, RequestScan>,
): Policy {
  const d = doc.defaults;
  const defaultRetry = resolveRetry(d?.retry);
  const defaults = {
    on_fail: d?.on_fail ?? "block",
    retry: defaultRetry,
    unlisted_tools: d?.unlisted_tools ?? "allow",
    unlisted_tools_set: d?.unlisted_tools !== undefined,
    undeclared_arguments: d?.undeclared_arguments ?? "refuse",
  } as const;
  const sources: Record<string, SourceConfig> = {};
  for (const [name, s] of Object.entries(doc.sources)) sources[name] = resolveSource(s, baseDir);
  const tools: Record<string, Policy["tools"][string]> = {};
  for (const [tool, tp] of Object.entries(doc.tools)) {
    const args: Record<string, Policy["tools"][string]["arguments"][string]> = {};
    for (const [arg, ap] of Object.entries(tp.arguments)) {
      const checks: CheckPolicy[] = (ap.ground?.checks ?? []).map((c) => ({
        source: c.source,
        ...requestOf(c, scans.get(c)),
        match: c.match,
        on_fail: c.on_fail ?? ap.ground?.on_fail ?? defaults.on_fail,
        retry: resolveRetry(c.retry, ap.ground?.retry, d?.retry),
      }));
      args[arg] = { ground: { checks }, as_text: ap.as_text ?? false };
    }
    tools[tool] = {
      mode: tp.mode ?? doc.mode ?? "enforce",
      arguments: args,
      undeclared_arguments: tp.undeclared_arguments ?? defaults.undeclared_arguments,
    };
  }
  const policy: { -readonly [K in keyof Policy]: Policy[K] } = {
    version: 1,
    mode: doc.mode ?? "enforce",
    digest,
    file,
    baseDir,
    sources,
    defaults,
    tools,
    context: contextNames(doc.context, doc.tools),
  };
  if (doc.audit !== undefined)
    policy.audit = {
      path: isAbsolute(doc.audit.path) ? doc.audit.path : resolve(baseDir, doc.audit.path),
      values: doc.audit.values,
    };
  return policy;
}

/** The analysis of a document that stopped before validation: its issues, and nothing else. */
function stopped(issues: PolicyIssue[]): PolicyAnalysis {
  return { lineOf: () => null, policy: null, bindings: [], issues };
}

/** An error about the whole document. */
function documentIssue(code: PolicyIssueCode, line: number | null, message: string): PolicyIssue {
  return { severity: "error", code, path: "", line, message };
}

/** A YAML parser message's first line, in the form of our messages: lower case, no final stop. */
function firstLine(message: string): string {
  const [first = ""] = message.split("\n");
  return first.replace(/\.$/, "").replace(/^./, (c) => c.toLowerCase());
}

/**
 * Analyse policy text without throwing: the policy (null when there is an error) and every issue.
 * `file` is used in messages; `baseDir` (default: the file's folder) resolves relative paths.
 */
export function analyzePolicy(
  text: string,
  file: string,
  options: LoadOptions & { baseDir?: string } = {},
): PolicyAnalysis {
  const env = options.env ?? process.env;
  const baseDir = options.baseDir ?? dirname(resolve(file));
  const lines = new LineCounter();
  const yaml = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (yaml.errors.length > 0) {
    return stopped(
      yaml.errors.map((e) =>
        documentIssue("yaml_invalid", lines.linePos(e.pos[0]).line, `invalid yaml: ${firstLine(e.message)}`),
      ),
    );
  }
  const loc = new YamlLines(yaml.contents as YamlNode | null, lines);
  const inexact = inexactNumbers(yaml, lines);
  if (inexact.length > 0) return stopped(inexact);
  let raw: unknown;
  try {
    raw = yaml.toJS({ maxAliasCount: 100 });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return stopped([documentIssue("yaml_invalid", null, `invalid yaml: ${why}`)]);
  }
  if (!isObject(raw)) {
    return stopped([documentIssue("schema_invalid", 1, "a policy is a mapping with `version`, `sources` and `tools`")]);
  }
  const digest = digestOf(raw); // before interpolation: secrets never reach the digest (adr/0006)
  const issues: PolicyIssue[] = [];
  const interpolated = interpolate(raw, env, [], issues, loc);
  const parsed = policySchema.safeParse(interpolated);
  if (!parsed.success) issues.push(...zodIssues(parsed.error, interpolated, loc));
  const bindings: CheckBinding[] = [];
  const scans = new Map<CheckInput, RequestScan>();
  if (parsed.success) issues.push(...crossCheck(parsed.data, loc, bindings, scans));
  const ordered = [...issues].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  const lineOf = (path: readonly (string | number)[], key?: string) => loc.line(path, key);
  if (!parsed.success || ordered.some((i) => i.severity === "error")) {
    return { policy: null, issues: ordered, lineOf, bindings: [] };
  }
  const policy = build(parsed.data, digest, file, baseDir, scans);
  rememberInterpolated(policy, interpolated);
  return { policy, issues: ordered, lineOf, bindings };
}

/** Parse policy text, throwing `PolicyError` (with file, line and YAML path) on the first error. */
export function parsePolicy(text: string, file: string, options: LoadOptions & { baseDir?: string } = {}): Policy {
  const { policy, issues } = analyzePolicy(text, file, options);
  if (policy === null) throw new PolicyError(file, issues);
  return policy;
}

/**
 * Load a policy file: YAML, `${VAR}` from the environment, validation, defaults, relative paths
 * resolved against the file's folder.
 * @example const policy = await loadPolicy("examples/refunds/policy.yaml");
 */
export async function loadPolicy(file: string, options: LoadOptions = {}): Promise<Policy> {
  let text: string;
  const path = resolve(options.cwd ?? process.cwd(), file);
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TesseraError(
      "policy_unreadable",
      code === "ENOENT"
        ? `no such policy file \`${file}\``
        : `cannot read policy file \`${file}\` (${code ?? "error"})`,
    );
  }
  return parsePolicy(text, file, { ...options, baseDir: dirname(path) });
}
