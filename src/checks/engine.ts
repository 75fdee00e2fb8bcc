/**
 * The check engine: binds a tool call's values, runs every check of every protected argument
 * against its Source, and combines the outcomes into one Decision (DESIGN.md §5). It knows Sources
 * only through the interface in source.ts; the caller supplies `openSource`.
 * @module
 */
import { getEventListeners } from "node:events";
import {
  type Bindings,
  combineOutcomes,
  type ConditionResult,
  evaluateConditions,
  isScalar,
  type Outcome,
  resolveBinding,
  type Scalar,
} from "../core/index.js";
import { numberProblem, numericStringProblem } from "../core/numbers.js";
import { TesseraError } from "../platform/errors.js";
import { printable } from "../platform/printable.js";
import { foldedName } from "./bindings.js";
import { Deadlines } from "./deadlines.js";
import type {
  CheckErrorCode,
  CheckOptions,
  CheckReport,
  CheckStatus,
  ConditionReport,
  Decision,
  ToolCall,
  TrustedContext,
} from "./decision.js";
import type { CheckPolicy, Policy, SourceConfig } from "./policy.js";
import { type PreparedRequest, type Source, SourceError, type SourceResult } from "./source.js";

/** Unused signals kept per engine for reuse: enough for the requests of a burst of concurrent checks. */
const MAX_SPARE_CONTROLLERS = 64;

/** Opens the Source a policy names; the engine calls it once per source, lazily, and again after a failed open. */
export type OpenSource = (name: string, config: SourceConfig) => Promise<Source>;

/** A compiled policy that decides tool calls. */
export interface Gate {
  /** The policy this gate enforces. */
  readonly policy: Policy;
  /** Ground every protected argument of `call` and decide; trusted `context` comes from the host, never the agent. */
  check(call: ToolCall, context?: TrustedContext, options?: CheckOptions): Promise<Decision>;
  /** Close every opened Source. Idempotent; `check` fails afterwards. */
  close(): Promise<void>;
}

interface CompiledCheck {
  readonly argument: string;
  readonly index: number;
  readonly policy: CheckPolicy;
  /** Names the match conditions read from trusted context (`ctx`) and from the bindings (`arg`). */
  readonly ctxNames: readonly string[];
  readonly argNames: readonly string[];
  readonly columns: readonly string[];
  prepared: { source: Source; request: PreparedRequest } | undefined;
}

interface CompiledTool {
  readonly arguments: readonly {
    readonly name: string;
    readonly checks: readonly CompiledCheck[];
    readonly asText: boolean;
  }[];
  /** Listed arguments that bind by name (a context field of the same name wins, adr/0046). */
  readonly bindable: ReadonlySet<string>;
  /** Folded listed-argument names, to refuse keys that shadow them. */
  readonly folded: ReadonlyMap<string, string>;
}

function compileCheck(argument: string, index: number, policy: CheckPolicy): CompiledCheck {
  const ctxNames: string[] = [];
  const argNames: string[] = [];
  const columns: string[] = [];
  for (const c of policy.match) {
    if ("ctx" in c) ctxNames.push(c.ctx);
    if ("arg" in c) argNames.push(c.arg);
    if ("column" in c) columns.push(c.column);
  }
  return { argument, index, policy, ctxNames, argNames, columns, prepared: undefined };
}

interface Attempted {
  status: CheckStatus;
  attempts: number;
  rows: number | null;
  conditions: readonly ConditionResult[];
  error?: { code: CheckErrorCode; message: string };
}

function errorOf(err: unknown, kind: string): { code: CheckErrorCode; message: string } {
  if (err instanceof SourceError) return { code: err.code, message: err.message };
  if (err instanceof TesseraError) return { code: "source_invalid_query", message: err.message };
  const name = err instanceof Error ? err.name : typeof err;
  return { code: "source_server_error", message: `unexpected ${name} from the \`${kind}\` adapter` };
}

/** A check's result as reported: the condition's own keys, then `ok`, `code`, and values when explained. */
function conditionReport(r: ConditionResult, explain: boolean): ConditionReport {
  // a key-by-key copy: spreading a parsed policy condition takes V8's slow path
  const out: Record<string, unknown> = {};
  const condition = r.condition as unknown as Readonly<Record<string, unknown>>;
  for (const key in condition) out[key] = condition[key];
  out.ok = r.ok;
  if (r.code !== undefined) out.code = r.code;
  if (explain) {
    if (r.expected !== undefined) out.expected = r.expected;
    if (r.actual !== undefined) out.actual = r.actual;
  }
  return out as ConditionReport;
}

/** Why an agent's value cannot be bound exactly (adr/0047), or null. */
function valueProblem(v: Scalar, asText: boolean): string | null {
  if (typeof v === "number") return numberProblem(v)?.message ?? null;
  if (typeof v === "string" && !asText) return numericStringProblem(v)?.message ?? null;
  return null;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function describeValue(v: unknown): string {
  return v === undefined ? "absent" : Array.isArray(v) ? "a list, not a scalar" : "an object, not a scalar";
}

/** The protected argument's value, or why it cannot be grounded (absent, not a scalar, shadowed, ambiguous). */
function groundedValue(
  name: string,
  given: Readonly<Record<string, unknown>>,
  asText: boolean,
  invalid: ReadonlyMap<string, string>,
): { value: Scalar } | string {
  const shadowed = invalid.get(name);
  if (shadowed !== undefined) return shadowed;
  const raw = Object.hasOwn(given, name) ? given[name] : undefined;
  if (raw === undefined || !isScalar(raw)) return `argument \`${name}\` is ${describeValue(raw)}`;
  const problem = valueProblem(raw, asText);
  return problem === null ? { value: raw } : `argument \`${name}\`: ${problem}`;
}

const INVALID_ARGUMENT_CODES: ReadonlySet<string> = new Set(["argument_invalid", "binding_missing"]);

/**
 * Compile `policy` into a Gate. Sources open on first use through `openSource`; each check's
 * request is prepared once and reused.
 * @example const gate = createEngine(policy, async (name, config) => mySource(config));
 */
export function createEngine(policy: Policy, openSource: OpenSource): Gate {
  const contextNames = new Set(policy.context);
  const tools = new Map<string, CompiledTool>();
  for (const [tool, tp] of Object.entries(policy.tools)) {
    const folded = new Map<string, string>();
    for (const name of Object.keys(tp.arguments)) folded.set(foldedName(name), name);
    tools.set(tool, {
      arguments: Object.entries(tp.arguments).map(([name, ap]) => ({
        name,
        checks: ap.ground.checks.map((c, i) => compileCheck(name, i, c)),
        asText: ap.as_text,
      })),
      bindable: new Set(Object.keys(tp.arguments).filter((n) => !contextNames.has(n))),
      folded,
    });
  }
  const opened = new Map<string, Promise<Source>>();
  const ready = new Map<string, Source>(); // opened sources, reachable without an await
  const deadlines = new Deadlines();
  // Creating an AbortSignal costs about as much as the rest of a check (adr/0041): a signal that did
  // not abort and that no listener holds any more goes back here for a later request.
  const spareControllers: AbortController[] = [];
  let closed = false;

  function source(name: string): Promise<Source> {
    let p = opened.get(name);
    if (p === undefined) {
      const config = policy.sources[name];
      if (config === undefined)
        return Promise.reject(new TesseraError("source_undefined", `undefined source \`${name}\``));
      p = openSource(name, config);
      opened.set(name, p);
      p.then(
        (s) => {
          if (!closed) ready.set(name, s);
        },
        () => opened.delete(name), // a failed open is retried by the next request
      );
    }
    return p;
  }

  // opening is bounded by the source's timeout too: an MCP server that never answers its
  // handshake must not hold a decision; the open itself keeps going and later requests reuse it
  function openBounded(name: string): Promise<Source> {
    const p = source(name);
    const ms = policy.sources[name]?.timeout_ms ?? 5000;
    return new Promise<Source>((resolve, reject) => {
      const entry = deadlines.add(ms, () =>
        reject(new SourceError("source_timeout", `source \`${name}\` did not open within ${ms} ms`)),
      );
      p.then(
        (s) => {
          deadlines.remove(entry);
          resolve(s);
        },
        (err: unknown) => {
          deadlines.remove(entry);
          reject(err);
        },
      );
    });
  }

  function runBounded(request: PreparedRequest, params: Record<string, Scalar>, ms: number): Promise<SourceResult> {
    const controller = spareControllers.pop() ?? new AbortController();
    return new Promise<SourceResult>((resolve, reject) => {
      const entry = deadlines.add(ms, () => {
        controller.abort();
        reject(new SourceError("source_timeout", `no answer within ${ms} ms`));
      });
      const settled = (): void => {
        deadlines.remove(entry);
        const signal = controller.signal;
        if (
          !signal.aborted &&
          spareControllers.length < MAX_SPARE_CONTROLLERS &&
          getEventListeners(signal, "abort").length === 0
        ) {
          spareControllers.push(controller);
        }
      };
      let p: Promise<SourceResult>;
      try {
        p = request.run(params, controller.signal);
      } catch (err) {
        settled();
        reject(err);
        return;
      }
      p.then(
        (r) => {
          settled();
          resolve(r);
        },
        (err: unknown) => {
          settled();
          reject(err);
        },
      );
    });
  }

  function invalidBinding(cc: CompiledCheck, parameters: readonly string[], invalid: ReadonlyMap<string, string>) {
    if (invalid.size === 0) return null;
    for (const p of [...parameters, ...cc.argNames]) {
      const why = invalid.get(p);
      if (why !== undefined) return why;
    }
    return null;
  }

  function missingBinding(cc: CompiledCheck, parameters: readonly string[], b: Bindings): string | null {
    const lacks = (n: string) =>
      contextNames.has(n)
        ? `trusted context field \`${n}\`, which the context lacks`
        : `argument \`${n}\`, which the call lacks`;
    for (const p of parameters) if (!resolveBinding(p, b).found) return `placeholder \`${p}\` binds ${lacks(p)}`;
    for (const n of cc.ctxNames)
      if (!Object.hasOwn(b.context, n)) return `condition needs trusted context field \`${n}\``;
    for (const n of cc.argNames) if (!resolveBinding(n, b).found) return `condition \`arg: ${n}\` binds ${lacks(n)}`;
    return null;
  }

  function evaluate(cc: CompiledCheck, result: SourceResult, b: Bindings): Attempted {
    const rows = result.rows;
    const match = evaluateConditions(rows, cc.policy.match, b);
    let conditions = match.conditions;
    let status: CheckStatus = match.status;
    const known = result.columns;
    if (known !== undefined && status !== "error" && cc.columns.some((c) => !known.includes(c))) {
      conditions = conditions.map((r) =>
        "column" in r.condition && !known.includes(r.condition.column)
          ? { condition: r.condition, ok: false, code: "column_missing" }
          : r,
      );
      status = "error";
    }
    if (status !== "error") return { status, attempts: 0, rows: rows.length, conditions };
    const bad = conditions.find((r) => r.code === "column_missing");
    const column = bad !== undefined && "column" in bad.condition ? bad.condition.column : "?";
    return {
      status,
      attempts: 0,
      rows: rows.length,
      conditions,
      error: {
        code: "column_missing",
        message: `column \`${column}\` is not in the result of source \`${cc.policy.source}\``,
      },
    };
  }

  async function attempt(cc: CompiledCheck, b: Bindings, invalid: ReadonlyMap<string, string>): Promise<Attempted> {
    const { policy: check } = cc;
    const max = check.retry.attempts + 1;
    let last: Attempted = { status: "error", attempts: 0, rows: null, conditions: [] };
    let requests = 0;
    for (let i = 0; i < max; i++) {
      let src: Source;
      let request: PreparedRequest;
      try {
        src = ready.get(check.source) ?? (await openBounded(check.source));
        if (cc.prepared === undefined || cc.prepared.source !== src) {
          cc.prepared = { source: src, request: src.prepare(check) };
        }
        request = cc.prepared.request;
      } catch (err) {
        requests++;
        last = {
          status: "error",
          attempts: requests,
          rows: null,
          conditions: [],
          error: errorOf(err, policy.sources[check.source]?.kind ?? "?"),
        };
        continue;
      }
      const bad = invalidBinding(cc, request.parameters, invalid);
      if (bad !== null) {
        return {
          status: "error",
          attempts: requests,
          rows: null,
          conditions: [],
          error: { code: "argument_invalid", message: bad },
        };
      }
      const missing = missingBinding(cc, request.parameters, b);
      if (missing !== null) {
        return {
          status: "error",
          attempts: requests,
          rows: null,
          conditions: [],
          error: { code: "binding_missing", message: missing },
        };
      }
      const params: Record<string, Scalar> = {};
      for (const p of request.parameters) params[p] = (resolveBinding(p, b) as { value: Scalar }).value;
      requests++;
      try {
        // a synchronous source cannot be interrupted: no signal, no timer (adr/0005)
        const result =
          request.runSync !== undefined ? request.runSync(params) : await runBounded(request, params, src.timeoutMs);
        last = evaluate(cc, result, b);
      } catch (err) {
        last = { status: "error", attempts: requests, rows: null, conditions: [], error: errorOf(err, src.kind) };
        continue;
      }
      last.attempts = requests;
      if (last.status !== "error") return last;
    }
    return last;
  }

  // a value that cannot be bound is not an outage: `on_error: allow` never lets it through
  function outcomeOf(a: Attempted, check: CheckPolicy): Outcome {
    if (a.status === "matched") return "allow";
    if (a.status === "mismatch") return check.on_fail;
    return a.error !== undefined && INVALID_ARGUMENT_CODES.has(a.error.code) ? "block" : check.retry.on_error;
  }

  function report(
    cc: CompiledCheck,
    a: Attempted,
    outcome: Outcome,
    explain: boolean,
    value: Scalar | undefined,
  ): CheckReport {
    const r: Record<string, unknown> = {
      argument: cc.argument,
      check: cc.index,
      source: cc.policy.source,
      status: a.status,
      outcome,
      attempts: a.attempts,
      rows: a.rows,
      conditions: a.conditions.map((c) => conditionReport(c, explain)),
    };
    if (a.error !== undefined) r.error = a.error;
    if (explain && value !== undefined) r.value = value;
    return r as unknown as CheckReport;
  }

  async function runCheck(
    cc: CompiledCheck,
    b: Bindings,
    invalid: ReadonlyMap<string, string>,
    explain: boolean,
  ): Promise<CheckReport> {
    const a = await attempt(cc, b, invalid);
    return report(cc, a, outcomeOf(a, cc.policy), explain, b.value);
  }

  /** The trusted context fields the policy names; one present but not a bindable scalar is a host error. */
  function contextBindings(context: Readonly<Record<string, unknown>>): Record<string, Scalar> {
    const out: Record<string, Scalar> = {};
    for (const name of policy.context) {
      if (!Object.hasOwn(context, name)) continue;
      const v = context[name];
      if (!isScalar(v)) {
        throw new TesseraError("context_invalid", `trusted context field \`${name}\` is ${describeValue(v)}`);
      }
      const problem = typeof v === "number" ? numberProblem(v) : null;
      if (problem !== null)
        throw new TesseraError("context_invalid", `trusted context field \`${name}\`: ${problem.message}`);
      out[name] = v;
    }
    return out;
  }

  /**
   * The call's listed arguments that bind by name, and why others cannot: a value no two readers
   * agree on, or a key that shadows a listed argument (`ORDER_ID` beside `order_id`).
   */
  function argumentBindings(compiled: CompiledTool, given: Readonly<Record<string, unknown>>) {
    const args: Record<string, Scalar> = {};
    const invalid = new Map<string, string>();
    const asText = new Set(compiled.arguments.filter((a) => a.asText).map((a) => a.name));
    for (const key of Object.keys(given)) {
      const listed = compiled.folded.get(foldedName(key));
      if (listed !== undefined && listed !== key) {
        invalid.set(
          listed,
          `argument \`${printable(key)}\` shadows \`${listed}\`; a reader that folds case or drops invisible characters could take either`,
        );
      }
    }
    for (const name of compiled.bindable) {
      if (!Object.hasOwn(given, name) || invalid.has(name)) continue;
      const v = given[name];
      if (!isScalar(v)) continue;
      const problem = valueProblem(v, asText.has(name));
      if (problem !== null) invalid.set(name, `argument \`${name}\`: ${problem}`);
      else args[name] = v;
    }
    return { args, invalid };
  }

  async function check(call: ToolCall, context: TrustedContext = {}, options: CheckOptions = {}): Promise<Decision> {
    if (closed) throw new TesseraError("gate_closed", "the gate is closed");
    if (!isPlainObject(call) || typeof call.tool !== "string" || call.tool === "") {
      throw new TesseraError(
        "call_invalid",
        "a call is an object with a non-empty string `tool` and an object `arguments`",
      );
    }
    if (!isPlainObject(call.arguments)) throw new TesseraError("call_invalid", "expected an object", "arguments");
    if (!isPlainObject(context)) throw new TesseraError("context_invalid", "trusted context: expected an object");
    const explain = options.explain === "values";
    const compiled = tools.get(call.tool);
    if (compiled === undefined) {
      return {
        decision: policy.defaults.unlisted_tools,
        tool: call.tool,
        policy_digest: policy.digest,
        reason: "unlisted_tool",
        checks: [],
      };
    }
    const ctx = contextBindings(context);
    const { args, invalid } = argumentBindings(compiled, call.arguments);
    const pending: Promise<CheckReport>[] = [];
    for (const arg of compiled.arguments) {
      if (arg.checks.length === 0) continue;
      const grounded = groundedValue(arg.name, call.arguments, arg.asText, invalid);
      if (typeof grounded === "string") {
        const message = grounded;
        for (const cc of arg.checks) {
          const a: Attempted = {
            status: "error",
            attempts: 0,
            rows: null,
            conditions: [],
            error: { code: "argument_invalid", message },
          };
          pending.push(Promise.resolve(report(cc, a, "block", false, undefined)));
        }
        continue;
      }
      const b: Bindings = { value: grounded.value, arguments: args, context: ctx };
      for (const cc of arg.checks) pending.push(runCheck(cc, b, invalid, explain));
    }
    const checks = await Promise.all(pending);
    return {
      decision: combineOutcomes(checks.map((c) => c.outcome)),
      tool: call.tool,
      policy_digest: policy.digest,
      checks,
    };
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    deadlines.clear();
    const all = [...opened.values()];
    opened.clear();
    ready.clear();
    await Promise.all(
      all.map((p) =>
        p.then(
          (s) => s.close(),
          () => undefined,
        ),
      ),
    );
  }

  return { policy, check, close };
}
