// One table of tool calls for the stdio and HTTP tests: the arguments, the library's result for the
// same input, and the CLI invocation whose `--json` output must be the same contract JSON.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { draftAction, listActions, verifyClaims } from "../../src/actions/index.js";
import { ground, routeQuestion, signatureCandidates } from "../../src/answers/index.js";
import { loadPolicy } from "../../src/checks/index.js";
import { openWorkspace } from "../../src/evidence/index.js";
import { createGate } from "../../src/gate.js";
import { gradeAnswer, parseGradeInput } from "../../src/grading/index.js";
import { CLAIMS } from "./fixtures.js";

/** One tool call with its expected twins. */
export interface ToolCase {
  readonly label: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** The library's result for the same input. */
  readonly library: () => unknown | Promise<unknown>;
  /** `tessera <args> --json` for the same input. */
  readonly cli: string[];
}

const dir = mkdtempSync(join(tmpdir(), "tessera-mcp-cases-"));

/** Remove the files and workspace copy this module wrote; call from `afterAll`. */
export function removeCaseFiles(): void {
  rmSync(dir, { recursive: true, force: true });
}
const file = (name: string, value: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(value));
  return p;
};

const EVIDENCE = [
  {
    id: "hr-7",
    revision: "3",
    title: "Equipment policy",
    text: "Employees may expense office chairs up to USD 500 with manager approval.",
  },
  { id: "hr-9", revision: "1", text: "Monitors are provided by IT; they are not expensed." },
];

const grade = (label: string, args: Record<string, unknown>): ToolCase => {
  const input = { request_id: "mcp", query: "", ...args };
  return {
    label,
    tool: "grade_answer",
    args,
    library: () => gradeAnswer(parseGradeInput(input)),
    cli: ["grade", "--input", file(`${label.replace(/\W+/g, "-")}.json`, input), "--json"],
  };
};

/** The example policy and the trusted context every test server is started with. */
export const POLICY = "examples/refunds/policy.yaml";
export const CONTEXT = { customer_id: "c-1", session: { id: "s-9" } };
export const CONTEXT_FILE = file("context.json", CONTEXT);
/** A private copy of the test workspace (opening it writes `.tessera/` inside). */
export const WORKSPACE = join(dir, "workspace");
cpSync(join(import.meta.dirname, "workspace"), WORKSPACE, { recursive: true });
/** The `tessera mcp` options of the test servers. */
export const SERVER_ARGS = ["--workspace", WORKSPACE, "--policy", POLICY, "--context", CONTEXT_FILE];

const grounded = (label: string, question: string): ToolCase => ({
  label,
  tool: "ground",
  args: { question },
  library: () => ground(WORKSPACE, question),
  cli: ["ground", "--workspace", WORKSPACE, question, "--json"],
});

/** `ground` with `explain: true`: the result, then the ranked signature candidates `ground --explain --json` adds. */
const explained = (label: string, question: string): ToolCase => ({
  label,
  tool: "ground",
  args: { question, explain: true },
  library: async () => {
    const result = await ground(WORKSPACE, question);
    const target = routeQuestion(question);
    const ws = await openWorkspace(WORKSPACE, { refresh: false });
    try {
      return { ...result, signature_candidates: target.kind === "rca" ? signatureCandidates(ws, target.run) : [] };
    } finally {
      ws.close();
    }
  },
  cli: ["ground", "--workspace", WORKSPACE, question, "--json", "--explain"],
});

const draft = (label: string, action: string, question: string): ToolCase => ({
  label,
  tool: "draft_action",
  args: { action, question },
  library: async () => draftAction(action, await ground(WORKSPACE, question)),
  cli: ["draft", action, "--workspace", WORKSPACE, question, "--json"],
});

const check = (label: string, call: { tool: string; arguments: Record<string, unknown> }): ToolCase => ({
  label,
  tool: "check_tool_call",
  args: call,
  library: async () => {
    const gate = createGate(await loadPolicy(POLICY));
    try {
      return await gate.check(call, CONTEXT);
    } finally {
      await gate.close();
    }
  },
  cli: [
    "check",
    "--policy",
    POLICY,
    "--call",
    file(`${label.replace(/\W+/g, "-")}.json`, call),
    "--context",
    CONTEXT_FILE,
    "--json",
  ],
});

/** Every tool case; each tool appears at least once. */
export const TOOL_CASES: ToolCase[] = [
  {
    label: "list_actions",
    tool: "list_actions",
    args: {},
    library: () => ({ actions: listActions() }),
    cli: ["actions", "--json"],
  },
  {
    label: "verify_claims",
    tool: "verify_claims",
    args: { claims: CLAIMS },
    library: () => verifyClaims(CLAIMS),
    cli: ["verify", "--claims", file("claims.json", CLAIMS), "--json"],
  },
  grounded("ground rca of a failed run", "why did run 7001 fail?"),
  grounded("ground summary of a PR", "summarize PR 41"),
  grounded("ground refused: the run passed", "why did run 7002 fail?"),
  grounded("ground refused: out of scope", "what is the weather in Lisbon?"),
  explained("ground explain: a failed run's ranked signature candidates", "why did run 7001 fail?"),
  explained("ground explain: a PR has no signature candidates", "summarize PR 41"),
  draft("draft_action incident", "incident", "why did run 7001 fail?"),
  draft("draft_action pr_summary", "pr_summary", "summarize PR 41"),
  draft("draft_action refused: incident of a PR question", "incident", "summarize PR 41"),
  draft("draft_action refused: unknown run", "incident", "why did run 9999 fail?"),
  check("check_tool_call allow", { tool: "refund_order", arguments: { order_id: 1001, amount_cents: 4999 } }),
  check("check_tool_call block: another customer's order", {
    tool: "refund_order",
    arguments: { order_id: 1003, amount_cents: 100 },
  }),
  check("check_tool_call block: the caller's customer_id does not override the trusted one", {
    tool: "refund_order",
    arguments: { order_id: 1003, amount_cents: 100, customer_id: "c-2" },
  }),
  check("check_tool_call hold: a late cancellation", { tool: "cancel_order", arguments: { order_id: 1001 } }),
  check("check_tool_call unlisted tool", { tool: "lookup_order", arguments: { order_id: 1003 } }),
  grade("grade_answer builtin supported", {
    answer: "Employees may expense office chairs up to USD 500 with manager approval. [hr-7]",
    evidence: EVIDENCE,
  }),
  grade("grade_answer builtin unsupported", {
    answer: "Employees may expense office chairs up to USD 5000.",
    evidence: EVIDENCE,
  }),
  grade("grade_answer generic supported", {
    answer: "Chairs up to USD 500.",
    evidence: EVIDENCE,
    evaluator: { name: "generic", threshold: 0.7 },
    result: { score: 0.91, threshold: 0.7, unsupported_detected: false },
  }),
  grade("grade_answer generic malformed", {
    answer: "Chairs up to USD 500.",
    evidence: EVIDENCE,
    evaluator: { name: "generic" },
    result: { score: "0.9", threshold: 0.7, unsupported_detected: false },
  }),
  grade("grade_answer evidence mismatch", {
    answer: "Chairs up to USD 500.",
    evidence: EVIDENCE,
    request_id: "r-42",
    query: "how much for a chair?",
    generation_digest: `sha256:${"0".repeat(64)}`,
  }),
];
