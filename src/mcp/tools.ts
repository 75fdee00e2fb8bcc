/**
 * The tools the MCP server offers: each a strict zod input, an output schema, a description that says
 * what it returns and that nothing is executed, and a handler that calls the library function the
 * CLI calls — so `structuredContent` is the same contract JSON `--json` prints (adr/0033). No SDK import.
 * @module
 */
import { statSync } from "node:fs";
import type { z } from "zod";
import { actionSpec, draftAction, listActions, verifyClaims } from "../actions/index.js";
import { groundQuestion, routeQuestion, type SignatureCandidate, signatureCandidates } from "../answers/index.js";
import type { GroundedResult } from "../answers/types.js";
import type { Gate } from "../checks/index.js";
import type { Claim } from "../core/index.js";
import type { Workspace } from "../evidence/index.js";
import { gradeAnswer, parseGradeInput } from "../grading/index.js";
import { TesseraError } from "../platform/errors.js";
import type { LoadedContext } from "./context.js";
import { LIMITS } from "./limits.js";
import {
  actionListOutput,
  actionProposalOutput,
  checkToolCallInput,
  claimsReportOutput,
  decisionOutput,
  draftActionInput,
  gradeAnswerInput,
  gradeResultOutput,
  groundedResultOutput,
  groundInput,
  listActionsInput,
  verifyClaimsInput,
} from "./schemas.js";

/** What the server was configured with, opened once and shared by every session. */
export interface Services {
  /** Trusted context for `check_tool_call`, from the server's configuration only. */
  readonly context: LoadedContext;
  /** The gate of the configured policy, or null without `--policy`. */
  readonly gate: Gate | null;
  /** The opened evidence workspace, or null without `--workspace`. */
  readonly workspace: Workspace | null;
  /** Release everything opened (workspace, gate). */
  close(): Promise<void>;
}

/** A tool's result before it goes on the wire. */
export interface ToolOutput {
  /** The contract JSON (what `--json` prints). */
  readonly structured: object;
  /** A short rendering for people. */
  readonly text: string;
  /** Extra result metadata (`_meta`), never part of the contract JSON. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** One MCP tool. */
export interface ToolDef<I extends z.ZodObject = z.ZodObject> {
  /** The tool's name in `tools/list` and `tools/call`. */
  readonly name: string;
  /** A short human title. */
  readonly title: string;
  /** What the tool returns, and that nothing is executed. */
  readonly description: string;
  /** The strict input schema. */
  readonly input: I;
  /** The schema of `structuredContent`. */
  readonly output: z.ZodObject;
  /** Messages for unknown argument names that are a known mistake (e.g. `context`). */
  readonly hints?: Readonly<Record<string, string>>;
  /** Whether the tool reads a Source (a database or a remote API) rather than only local data. */
  readonly openWorld?: boolean;
  /** Compute the result for validated arguments; throw `TesseraError` for a coded tool error. */
  run(args: z.output<I>, services: Services): Promise<ToolOutput> | ToolOutput;
}

const NOTHING_EXECUTED = "Nothing is executed and nothing is sent anywhere: the tool only reads and verifies.";
const REFRESHES = "The workspace's evidence index (<dir>/.tessera) is refreshed from its files first.";

const clip = (s: string, n = 100) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

const verifyClaimsTool: ToolDef<typeof verifyClaimsInput> = {
  name: "verify_claims",
  title: "Verify claims against their cited evidence",
  description:
    "Checks each claim against the evidence records it cites, with Tessera's deterministic verifier (token-bounded " +
    "containment; the shared-fragment and snippet claim shapes). The claims of a `ground` result can be passed as " +
    "they are. Returns {all_supported, claims: [{text, supported, shape, reason, record}]} — the JSON " +
    "`tessera verify --claims <file> --json` prints. " +
    NOTHING_EXECUTED,
  input: verifyClaimsInput,
  output: claimsReportOutput,
  run(args) {
    const report = verifyClaims(args.claims as readonly Claim[]);
    const n = report.claims.filter((c) => c.supported).length;
    const lines = report.claims.map(
      (c) => `${c.supported ? "supported  " : "UNSUPPORTED"}  ${c.shape}/${c.reason}  ${clip(c.text)}`,
    );
    return { structured: report, text: `${n} of ${report.claims.length} claims supported\n${lines.join("\n")}` };
  },
};

const listActionsTool: ToolDef<typeof listActionsInput> = {
  name: "list_actions",
  title: "List the action kinds Tessera can draft",
  description:
    "Lists the action catalog: each kind (incident, pr_summary) with its description, the answer routes and domains it " +
    "drafts from, the claim role its title is lifted from and the roles its fields come from. Returns {actions: [...]} — " +
    "the JSON `tessera actions --json` prints. " +
    NOTHING_EXECUTED,
  input: listActionsInput,
  output: actionListOutput,
  run() {
    const actions = listActions();
    return { structured: { actions }, text: actions.map((a) => `${a.kind}: ${a.description}`).join("\n") };
  },
};

const gradeAnswerTool: ToolDef<typeof gradeAnswerInput> = {
  name: "grade_answer",
  title: "Grade an answer against its evidence",
  description:
    "Decides whether an answer is supported by the evidence it was generated from: supported, unsupported or unavailable " +
    "(an evaluator result that is missing, malformed or timed out is never supported). With the builtin evaluator the " +
    "verdict is computed here; with bedrock, azure or generic the saved `result` is adapted and validated. Returns " +
    "{state, score, threshold, reason, evidence_ids, evaluator, delivery} — the JSON `tessera grade --input <file> --json` " +
    "prints. " +
    NOTHING_EXECUTED,
  input: gradeAnswerInput,
  output: gradeResultOutput,
  run(args) {
    const { request_id, query, ...rest } = args;
    // the same validation `tessera grade` applies to its input file
    const input = parseGradeInput({ request_id: request_id ?? "mcp", query: query ?? "", ...rest }, "arguments");
    const r = gradeAnswer(input);
    const num = (v: number | null) => (v === null ? "-" : String(v));
    return {
      structured: r,
      text: `${r.state} (${r.reason}; score ${num(r.score)}, threshold ${num(r.threshold)}; ${r.evaluator.name} ${r.evaluator.version}): ${r.delivery}`,
    };
  },
};

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Ground a question over the configured workspace, refreshed first (as `tessera ground` opens it
 * afresh; the scan is skipped while the server's watch of the folder saw no change, adr/0110).
 */
async function groundOver(services: Services, question: string): Promise<GroundedResult> {
  const ws =
    services.workspace ??
    missing("workspace_missing", "no workspace configured: start the server with `tessera mcp --workspace <dir>`");
  // a vanished folder would otherwise refresh to an empty workspace and refuse every question
  if (!isFolder(ws.dir)) throw new TesseraError("workspace_not_found", `workspace \`${ws.dir}\` is no longer a folder`);
  await ws.refreshChanged();
  return groundQuestion(ws, question);
}

/** The ranked signature candidates of the run a question names (none for another route), as `ground --explain`. */
function candidatesOver(services: Services, question: string): SignatureCandidate[] {
  const target = routeQuestion(question);
  return target.kind === "rca" && services.workspace !== null
    ? signatureCandidates(services.workspace, target.run)
    : [];
}

const groundTool: ToolDef<typeof groundInput> = {
  name: "ground",
  title: "Ground a question in the workspace evidence",
  description:
    "Answers a question about the server's evidence workspace with verified claims only: a root-cause analysis of a " +
    'failed CI run ("why did run 7001 fail?") or a summary of a pull request ("summarize PR 41"); anything else is ' +
    "refused with the reason. Every claim cites its evidence and is checked by the deterministic verifier. Returns " +
    "{domain, question, route, grounded, refused, refusal, claims: [{role, text, verified, shape, support}], all_verified} " +
    '— the JSON `tessera ground --workspace <dir> "<question>" --json` prints; with `explain: true` also ' +
    "signature_candidates: [{id, text, rule, score, reasons: [{reason, points}]}], a failed run's ranked failure-signature " +
    "candidates (the signature first), as `--explain --json` adds them. " +
    NOTHING_EXECUTED +
    " " +
    REFRESHES,
  input: groundInput,
  output: groundedResultOutput,
  async run(args, services) {
    const r = await groundOver(services, args.question);
    const head = r.refused
      ? `refused (${r.route.kind}): ${r.refusal ?? r.route.reason}`
      : `${r.route.kind}: ${r.claims.length} claims, ${r.all_verified ? "all verified" : "NOT all verified"}`;
    const lines = [
      head,
      ...r.claims.map((c) => `  ${c.verified ? "verified  " : "UNVERIFIED"}  ${c.role}: ${clip(c.text)}`),
    ];
    if (args.explain !== true) return { structured: r, text: lines.join("\n") };
    const candidates = candidatesOver(services, args.question);
    lines.push(`signature candidates (ranked): ${candidates.length}`);
    for (const [i, c] of candidates.entries())
      lines.push(
        `  ${i + 1}. ${c.score} ${c.rule} (${c.reasons.map((x) => `${x.reason} ${x.points >= 0 ? "+" : ""}${x.points}`).join(", ")}): ${clip(c.text)} [${c.id}]`,
      );
    return { structured: { ...r, signature_candidates: candidates }, text: lines.join("\n") };
  },
};

const draftActionTool: ToolDef<typeof draftActionInput> = {
  name: "draft_action",
  title: "Draft a field-verified action proposal",
  description:
    "Drafts an action proposal (incident from a failed run, pr_summary from a pull request) from the workspace's grounded " +
    "answer to the question: every field is a verbatim fragment of cited evidence, re-verified; a refused grounding gives " +
    "a proposal carrying the refusal and no fields. Returns {kind, domain, question, route, grounded, refused, refusal, " +
    "fields: [{name, role, value, verified, support}], all_grounded, requires_approval: true, executed: false} — the JSON " +
    '`tessera draft <kind> --workspace <dir> "<question>" --json` prints. Nothing is executed: the proposal needs a ' +
    "person's approval and Tessera never acts on it. " +
    REFRESHES,
  input: draftActionInput,
  output: actionProposalOutput,
  async run(args, services) {
    actionSpec(args.action); // an unknown kind is `unknown_action`, before anything is read
    const p = draftAction(args.action, await groundOver(services, args.question));
    const head = p.refused
      ? `${p.kind}: refused: ${p.refusal ?? p.route.reason}`
      : `${p.kind} proposal: ${p.fields.length} fields, ${p.all_grounded ? "all grounded" : "NOT all grounded"}; requires approval, not executed`;
    return {
      structured: p,
      text: [
        head,
        ...p.fields.map((f) => `  ${f.verified ? "verified  " : "UNVERIFIED"}  ${f.name}: ${clip(f.value)}`),
      ].join("\n"),
    };
  },
};

/** The `_meta` key saying which trusted-context keys a decision bound. */
export const CONTEXT_META_KEY = "tessera/context";

const checkToolCallTool: ToolDef<typeof checkToolCallInput> = {
  name: "check_tool_call",
  title: "Check a proposed tool call against the policy",
  description:
    "Grounds the arguments of a tool call an agent proposes against the trusted sources of the server's policy and " +
    "decides allow, block or hold (human review). Nothing is executed: the proposed call is not made, only the policy's " +
    "read-only lookups run (and the decision is appended to the policy's audit log, if it has one). Trusted context " +
    "(such as the signed-in customer) comes only from the server's configuration, never from these arguments; the " +
    "result's _meta lists the context keys bound. Returns {decision, tool, policy_digest, checks: [...]} — " +
    "the JSON `tessera check --policy <file> --call <file> --context <file> --json` prints.",
  input: checkToolCallInput,
  output: decisionOutput,
  openWorld: true,
  hints: {
    context:
      "`context` is not an argument: trusted context comes from the server's configuration (`--context`, `TESSERA_CONTEXT_JSON`), never from the caller",
  },
  async run(args, services) {
    if (Object.keys(args.arguments).length > LIMITS.argumentKeys) {
      throw new TesseraError("input_too_large", `more than ${LIMITS.argumentKeys} keys`, "arguments");
    }
    const gate =
      services.gate ??
      missing("policy_missing", "no policy configured: start the server with `tessera mcp --policy <file>`");
    const d = await gate.check({ tool: args.tool, arguments: args.arguments }, services.context.values);
    const bound = services.context.bound;
    const failing = d.checks.filter((c) => c.outcome !== "allow");
    const lines = failing.map(
      (c) =>
        `  ${c.argument} check ${c.check} (${c.source}): ${c.status}${c.error ? ` ${c.error.code}` : ""} -> ${c.outcome}`,
    );
    const shadow = d.enforced === false ? "shadow mode, not enforced (the call may go ahead): " : "";
    const head = `${shadow}${d.decision} ${d.tool}: ${d.checks.length - failing.length} of ${d.checks.length} checks passed${d.reason ? ` (${d.reason})` : ""}`;
    const ctx = `trusted context bound: ${bound.length === 0 ? "none" : bound.join(", ")} (from the server's configuration)`;
    return {
      structured: d,
      text: [head, ...lines, ctx].join("\n"),
      meta: { [CONTEXT_META_KEY]: { bound: [...bound] } },
    };
  },
};

/** Every tool this build serves, in the order `tools/list` shows them. */
export function toolDefs(): readonly ToolDef[] {
  return [
    listActionsTool,
    draftActionTool,
    groundTool,
    verifyClaimsTool,
    checkToolCallTool,
    gradeAnswerTool,
  ] as unknown as readonly ToolDef[];
}

/** A tool that needs configuration the server was not given. */
export function missing(code: "workspace_missing" | "policy_missing", message: string): never {
  throw new TesseraError(code, message);
}
