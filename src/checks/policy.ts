/**
 * The policy file schema (specs/policy.md): zod 4 strict objects, so an unknown key
 * is an error. `loadPolicy` (load.ts) validates a YAML document against `policySchema` and
 * resolves it into a `Policy`.
 * @module
 */
import { z } from "zod";
import type { ColumnOp, CompareOp, Condition, NullOp, Outcome, Scalar } from "../core/index.js";
import type { CheckRequest } from "./source.js";
import { nonEmpty, type SourceConfig, sourceSchema } from "./source-config.js";
import { DEFAULT_TIMEOUT_MS, SOURCE_KIND_NAMES, type SourceKindName } from "./source-kinds.js";

const COMPARE_OPS = ["eq", "ne", "gt", "gte", "lt", "lte"] as const satisfies readonly CompareOp[];
const LIST_OPS = ["in", "not_in"] as const satisfies readonly ColumnOp[];
const NULL_OPS = ["is_null", "not_null"] as const satisfies readonly NullOp[];

export { DEFAULT_TIMEOUT_MS, SOURCE_KIND_NAMES, type SourceKindName };
export {
  type HttpSourceConfig,
  type McpSourceConfig,
  type MysqlSourceConfig,
  type PostgresSourceConfig,
  SOURCE_SCHEMAS,
  type SourceConfig,
  type SourceConfigInput,
  type SourceConfigOf,
  type SqliteSourceConfig,
  sourceSchema,
} from "./source-config.js";

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected a name of letters, digits and `_`");

const conditionInput = z.strictObject({
  column: nonEmpty.optional(),
  rows: z.enum(COMPARE_OPS).optional(),
  op: z.enum([...COMPARE_OPS, ...LIST_OPS, ...NULL_OPS]).optional(),
  ctx: identifier.optional(),
  arg: identifier.optional(),
  value: z.union([scalar, z.array(scalar)], { error: "expected a scalar or a list of scalars" }).optional(),
});
type ConditionInput = z.output<typeof conditionInput>;

function conditionProblem(c: ConditionInput): string | null {
  const operands = (["ctx", "arg", "value"] as const).filter((k) => c[k] !== undefined);
  if ((c.column === undefined) === (c.rows === undefined))
    return "a condition needs exactly one of `column` and `rows`";
  if (c.rows !== undefined) {
    if (c.op !== undefined || c.ctx !== undefined || c.arg !== undefined)
      return "a `rows` condition takes only `rows` and `value`";
    if (typeof c.value !== "number" || !Number.isInteger(c.value) || c.value < 0)
      return "a `rows` condition needs `value`: a whole number of rows";
    return null;
  }
  const op = c.op ?? "eq";
  if (op === "is_null" || op === "not_null")
    return operands.length === 0 ? null : `\`op: ${op}\` takes no \`ctx\`, \`arg\` or \`value\``;
  if (op === "in" || op === "not_in") {
    if (operands.length !== 1 || !Array.isArray(c.value)) return `\`op: ${op}\` needs \`value\`: a list of literals`;
    return null;
  }
  if (operands.length !== 1) return "a column condition needs exactly one of `ctx`, `arg` and `value`";
  if (Array.isArray(c.value)) return `a list \`value\` needs \`op: in\` or \`op: not_in\``;
  return null;
}

// the condition echoed in decisions: its own keys, in this fixed order
function toCondition(c: ConditionInput): Condition {
  if (c.rows !== undefined) return { rows: c.rows, value: c.value as number };
  const out: Record<string, unknown> = { column: c.column };
  if (c.op !== undefined) out.op = c.op;
  if (c.ctx !== undefined) out.ctx = c.ctx;
  if (c.arg !== undefined) out.arg = c.arg;
  if (c.value !== undefined) out.value = c.value;
  return out as unknown as Condition;
}

/** One match condition (specs/policy.md). */
export const conditionSchema = conditionInput
  .superRefine((c, ctx) => {
    const problem = conditionProblem(c);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform(toCondition);

const onFail = z.enum(["block", "hold"]);
const onError = z.enum(["block", "hold", "allow"]);
const retryInput = z.strictObject({
  attempts: z.number().int().min(0).max(10).optional(),
  on_error: onError.optional(),
});

const checkInput = z
  .strictObject({
    source: nonEmpty,
    query: nonEmpty.optional(),
    path: nonEmpty.optional(),
    tool: nonEmpty.optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    match: z
      .array(conditionSchema)
      .min(1, "a check needs at least one `match` condition")
      .describe("conditions that must all hold"),
    on_fail: onFail.optional(),
    retry: retryInput.optional(),
  })
  .superRefine((c, ctx) => {
    const requests = [c.query, c.path, c.tool].filter((x) => x !== undefined).length;
    if (requests !== 1)
      ctx.addIssue({
        code: "custom",
        message: "a check needs exactly one of `query` (sql), `path` (http) and `tool` (mcp)",
      });
    if (c.arguments !== undefined && c.tool === undefined)
      ctx.addIssue({ code: "custom", message: "`arguments` need `tool`" });
  });

const groundInput = z.strictObject({
  checks: z.array(checkInput).min(1, "a `ground` block needs at least one check"),
  on_fail: onFail.optional(),
  retry: retryInput.optional(),
});

const argumentInput = z
  .strictObject({
    ground: groundInput.optional().describe("the checks that ground this argument; without them it is only bound"),
    as_text: z
      .boolean()
      .optional()
      .describe(
        "bind a value that looks like a number (`01001`, `+1 555 0100`) as written; the default refuses any numeric spelling but the canonical one",
      ),
  })
  .describe("a listed argument: grounded by its checks, and bindable by name in the tool's other checks");
const undeclaredArguments = z
  .enum(["refuse", "allow"])
  .describe(
    "what the gateway does with an argument the tool's pinned inputSchema does not declare in its `properties`: refuse (block the call, the default) or allow; a key that folds to a declared one is refused either way",
  );
const policyMode = z
  .enum(["enforce", "shadow"])
  .describe(
    "enforce (the default): a block or hold stops the call; shadow: every decision is computed, audited and reported with `enforced: false`, and the call is allowed",
  );
const toolInput = z.strictObject({
  mode: policyMode.optional().describe("this tool's mode, over the policy's `mode`"),
  arguments: z.record(z.string(), argumentInput),
  undeclared_arguments: undeclaredArguments.optional(),
});

const defaultsInput = z.strictObject({
  on_fail: onFail.optional(),
  retry: retryInput.optional(),
  unlisted_tools: z.enum(["allow", "block", "hold"]).optional(),
  undeclared_arguments: undeclaredArguments.optional(),
});

/** The whole policy file as written (before defaults are pushed down to each check). */
export const policySchema = z.strictObject({
  version: z.literal(1),
  mode: policyMode.optional(),
  context: z
    .array(identifier)
    .optional()
    .describe(
      "the trusted context fields the host supplies (with every `ctx:` name); a placeholder of such a name binds only from the context",
    ),
  sources: z.record(z.string().min(1), sourceSchema),
  defaults: defaultsInput
    .optional()
    .describe("on_fail, retry, unlisted_tools and undeclared_arguments for every check and tool"),
  tools: z
    .record(z.string().min(1), toolInput)
    .default({})
    .describe("tool name → its protected arguments and their checks"),
  audit: z
    .strictObject({
      path: nonEmpty.describe("SQLite audit log, relative to the policy file"),
      values: z.boolean().default(false).describe("keep argument and row values (default: ids and digests only)"),
    })
    .optional(),
});

/** The validated document, before defaults are applied. */
export type PolicyDocument = z.output<typeof policySchema>;

/** Retry settings of one check, resolved. */
export interface RetryPolicy {
  /** Retries after the first request: `attempts: 2` means at most three requests. */
  readonly attempts: number;
  readonly on_error: Outcome;
}

/** What every check has besides its request. */
export interface CheckSettings {
  readonly source: string;
  readonly match: readonly Condition[];
  readonly on_fail: "block" | "hold";
  readonly retry: RetryPolicy;
}

/**
 * One check with every default applied: its settings and its request, the one its source's kind
 * takes (a SQL `query` with the placeholder names the loader found, a `path`, or a `tool`).
 */
export type CheckPolicy = CheckSettings & CheckRequest;

/** The checks that ground one protected argument. */
export interface ArgumentPolicy {
  /** No checks: the argument is only bound by name in the tool's other checks. */
  readonly ground: { readonly checks: readonly CheckPolicy[] };
  /** Bind a numeric-looking string as written instead of refusing a non-canonical spelling. */
  readonly as_text: boolean;
}

/** What the gateway does with an argument the tool's pinned `inputSchema` does not declare. */
export type UndeclaredArguments = "refuse" | "allow";

/** Whether a policy's decisions stop calls (`enforce`) or are only computed and audited (`shadow`, adr/0128). */
export type PolicyMode = "enforce" | "shadow";

/** A listed tool: its protected arguments. */
export interface ToolPolicy {
  /** The tool's own `mode`, else the policy's. */
  readonly mode: PolicyMode;
  readonly arguments: Readonly<Record<string, ArgumentPolicy>>;
  /** The gateway's rule for undeclared arguments: the tool's own, else `defaults.undeclared_arguments`. */
  readonly undeclared_arguments: UndeclaredArguments;
}

/** Policy-wide defaults, resolved. */
export interface PolicyDefaults {
  readonly on_fail: "block" | "hold";
  readonly retry: RetryPolicy;
  /** The decision for a tool the policy does not list (default `allow`, adr/0009). */
  readonly unlisted_tools: Outcome;
  /**
   * Whether the policy file sets `defaults.unlisted_tools` itself. `tessera serve` decides an
   * unlisted tool only then, and refuses it otherwise (adr/0125). Absent: not set.
   */
  readonly unlisted_tools_set?: boolean;
  /** The gateway's rule for undeclared arguments of tools that set none (default `refuse`, adr/0065). */
  readonly undeclared_arguments: UndeclaredArguments;
}

/** A loaded policy: validated, interpolated, relative paths resolved, defaults applied. */
export interface Policy {
  readonly version: 1;
  /** The policy's `mode` (default `enforce`): what unlisted tools and tools without their own `mode` use. */
  readonly mode: PolicyMode;
  /** `sha256:<hex>` over the canonical JSON of the document before `${VAR}` interpolation (adr/0006). */
  readonly digest: string;
  /** The policy file as given to `loadPolicy`, for messages. */
  readonly file: string;
  /** Absolute folder of the policy file. */
  readonly baseDir: string;
  readonly sources: Readonly<Record<string, SourceConfig>>;
  readonly defaults: PolicyDefaults;
  readonly tools: Readonly<Record<string, ToolPolicy>>;
  /**
   * Trusted context field names: the declared `context` list and every `ctx:` name, sorted. A
   * binding of such a name reads only the trusted context, never an argument (adr/0046).
   */
  readonly context: readonly string[];
  readonly audit?: { readonly path: string; readonly values: boolean };
}

/** Literal values a condition may compare with. */
export type Literal = Scalar | readonly Scalar[];
