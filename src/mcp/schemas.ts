/**
 * zod schemas of the MCP tools: strict inputs with size limits, and output schemas that pin the
 * contract keys of specs/json-shapes.md (loose, so a contract that gains a key does not break old clients).
 * @module
 */
import { z } from "zod";
import { checkRender, groundingKeys, ROUTE_KINDS } from "../answers/schema.js";
import { LIMITS } from "./limits.js";

const name = z.string().max(LIMITS.name);

/**
 * One evidence record as specs/claim-grammar.md defines it (the input `tessera verify --claims` reads); a
 * locator's `render`, as `ground` returns it, must be what its kind and parts render as.
 */
export const evidenceRecordInput = z.strictObject({
  id: name.min(1),
  source: name,
  locator: z
    .strictObject({
      kind: name,
      parts: z.array(z.tuple([name, z.string().max(LIMITS.locatorValue)])).max(LIMITS.locatorParts),
      // the longest rendering of a kind and parts within their limits: `kind name=value …`
      render: z
        .string()
        .max(LIMITS.name + LIMITS.locatorParts * (LIMITS.name + LIMITS.locatorValue + 2))
        .optional(),
    })
    .superRefine(checkRender),
  text: z.string().max(LIMITS.recordText),
  revision: name.optional(),
});

/** `verify_claims {claims}`; a claim of a `ground` result is one (its `role`, `verified`, `shape` are not used). */
export const verifyClaimsInput = z.strictObject({
  claims: z
    .array(
      z.strictObject({
        role: name.optional(),
        text: z.string().max(LIMITS.text),
        verified: z.boolean().optional(),
        shape: name.optional(),
        support: z.array(evidenceRecordInput).max(LIMITS.records),
      }),
    )
    .min(1)
    .max(LIMITS.claims)
    .describe("claims to check, each with the evidence records it cites"),
});

/** What `verify_claims` returns. */
export const claimsReportOutput = z.looseObject({
  all_supported: z.boolean(),
  claims: z.array(
    z.looseObject({
      text: z.string(),
      supported: z.boolean(),
      shape: z.string(),
      reason: z.string(),
      record: z.string().nullable(),
    }),
  ),
});

/** What `list_actions` returns. */
export const actionListOutput = z.looseObject({
  actions: z.array(
    z.looseObject({
      kind: z.string(),
      description: z.string(),
      routes: z.array(z.string()),
      domains: z.array(z.string()),
      title_from: z.string(),
      roles: z.array(z.string()),
    }),
  ),
});

/** A question about the workspace: a run or a pull request. */
export const question = z
  .string()
  .min(1)
  .max(LIMITS.question)
  .describe('a question naming a CI run ("why did run 812 fail?") or a pull request ("summarize PR 42")');

/** `ground {question, explain?}`. */
export const groundInput = z.strictObject({
  question,
  explain: z
    .boolean()
    .optional()
    .describe(
      "also return a failed run's ranked failure-signature candidates with the reasons of each score (`signature_candidates`)",
    ),
});

/** `draft_action {action, question}`. */
export const draftActionInput = z.strictObject({
  action: name.min(1).describe("the action kind, as `list_actions` names it (incident, pr_summary)"),
  question,
});

/** `list_actions {}`. */
export const listActionsInput = z.strictObject({});

/** `check_tool_call {tool, arguments}`; trusted context is never an argument. */
export const checkToolCallInput = z.strictObject({
  tool: name.min(1).describe("the name of the tool the agent proposes to call"),
  arguments: z
    .record(z.string().max(LIMITS.name), z.unknown())
    .describe("the proposed call's arguments, as the agent would send them"),
});

const route = z.looseObject({ kind: z.enum(ROUTE_KINDS), reason: z.string() });

// the grounding keys a GroundedResult and an ActionProposal share, in contract order (one definition)
const grounding = groundingKeys(route);

/** The `GroundedResult` of specs/json-shapes.md. */
export const groundedResultOutput = z.looseObject({
  ...grounding,
  claims: z.array(
    z.looseObject({
      role: z.string(),
      text: z.string(),
      verified: z.boolean(),
      shape: z.string(),
      support: z.array(
        z.looseObject({
          id: z.string(),
          source: z.string(),
          locator: z.looseObject({ kind: z.string(), parts: z.array(z.array(z.string())), render: z.string() }),
          text: z.string(),
        }),
      ),
    }),
  ),
  all_verified: z.boolean(),
  // an RCA answer's: why its failure_signature claim cites the line it does (adr/0105)
  signature: z
    .looseObject({
      id: z.string(),
      rule: z.string(),
      score: z.number(),
      basis: z.string(),
      reasons: z.array(z.looseObject({ reason: z.string(), points: z.number() })),
    })
    .optional(),
  // only with `explain: true`: what `tessera ground --explain --json` adds after the result's keys
  signature_candidates: z
    .array(
      z.looseObject({
        id: z.string(),
        text: z.string(),
        rule: z.string(),
        score: z.number(),
        reasons: z.array(z.looseObject({ reason: z.string(), points: z.number() })),
      }),
    )
    .optional(),
});

/** The `ActionProposal` of specs/json-shapes.md. */
export const actionProposalOutput = z.looseObject({
  kind: z.string(),
  ...grounding,
  fields: z.array(
    z.looseObject({
      name: z.string(),
      role: z.string(),
      value: z.string(),
      verified: z.boolean(),
      support: z.array(z.string()),
    }),
  ),
  all_grounded: z.boolean(),
  requires_approval: z.literal(true),
  executed: z.literal(false),
});

/** The decision JSON of specs/json-shapes.md. */
export const decisionOutput = z.looseObject({
  decision: z.enum(["allow", "block", "hold"]),
  tool: z.string(),
  policy_digest: z.string(),
  checks: z.array(
    z.looseObject({
      argument: z.string(),
      check: z.number(),
      source: z.string(),
      status: z.enum(["matched", "mismatch", "error"]),
      outcome: z.enum(["allow", "block", "hold"]),
    }),
  ),
});

const unit = z.number().min(0).max(1);

/** `grade_answer {answer, evidence, evaluator?, result?}`, plus the optional fields `tessera grade` reads. */
export const gradeAnswerInput = z.strictObject({
  answer: z.string().max(LIMITS.text).describe("the answer to grade"),
  evidence: z
    .array(
      z.strictObject({
        id: name.min(1),
        revision: name.min(1),
        title: z.string().max(LIMITS.question).optional(),
        text: z.string().max(LIMITS.recordText),
      }),
    )
    .max(LIMITS.records)
    .describe("the authorized documents the answer was generated from"),
  evaluator: z
    .strictObject({
      name: z.enum(["builtin", "bedrock", "azure", "generic"]),
      version: name.min(1).optional(),
      threshold: unit.optional(),
    })
    .optional()
    .describe("the evaluator whose saved response `result` is (default: builtin, computed here)"),
  result: z
    .unknown()
    .optional()
    .describe("the evaluator's raw saved response (bedrock, azure, generic); ignored by builtin"),
  request_id: name.min(1).optional().describe("the request id (default `mcp`)"),
  query: z.string().max(LIMITS.question).optional().describe("the user's question (default empty)"),
  generation_digest: z
    .string()
    .max(LIMITS.name)
    .optional()
    .describe("the evidence digest the generator saw; a mismatch is unavailable"),
});

/** The grading record of specs/grading.md. */
export const gradeResultOutput = z.looseObject({
  state: z.enum(["supported", "unsupported", "unavailable"]),
  score: z.number().nullable(),
  threshold: z.number().nullable(),
  reason: z.string(),
  evidence_ids: z.array(z.string()),
  evaluator: z.looseObject({ name: z.string(), version: z.string() }),
  delivery: z.enum(["deliver", "deliver_with_notice", "withhold"]),
});
