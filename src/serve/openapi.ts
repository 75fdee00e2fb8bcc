/**
 * The OpenAPI 3.1 document of the service, written by hand beside the routes it describes;
 * `test/serve/openapi.test.ts` checks that it lists exactly the routes of router.ts and every
 * error code of errors.ts. `tessera serve --openapi` prints it.
 * @module
 */
import { version } from "../platform/version.js";
import { ERROR_STATUS } from "./errors.js";

const json = (schema: unknown) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref("Error")) });

const ERRORS_4XX = {
  "400": error("malformed JSON, a wrong type, an unknown key, nesting too deep (`error.code` says which)"),
  "401": error("no bearer token, or a wrong one"),
  "413": error("the body is over the size limit"),
  "415": error("the body is not `application/json`"),
  "503": error("over the concurrency limit, past the deadline, shutting down, or the store failed (`Retry-After`)"),
};

const DECISION_HEADERS = {
  "Tessera-Call-Id": { description: "the `call_id` of the decision's audit event", schema: { type: "string" } },
  "Tessera-Action": {
    description:
      "what the caller does: `run` (allowed, or held and an approval of exactly this call was used now), `refuse` (blocked), `hold` (waiting for a reviewer)",
    schema: { type: "string", enum: ["run", "refuse", "hold"] },
  },
  "Tessera-Review-Id": { description: "the review of a held call, or the approval used", schema: { type: "string" } },
};

/** The OpenAPI document. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Tessera decision service",
      version,
      description:
        "Grounds tool calls, grades answers and verifies proposals over HTTP; each answer is byte for byte the `--json` of the matching `tessera` command (specs/serve.md).",
    },
    servers: [{ url: "http://127.0.0.1:8337" }],
    security: [{ bearer: [] }],
    paths: {
      "/v1/check": {
        post: {
          operationId: "check",
          summary: "ground a tool call: allow, block or hold",
          requestBody: { required: true, content: json(ref("CheckRequest")) },
          responses: {
            "200": {
              description: "the Decision, as `tessera check --json` prints it",
              headers: DECISION_HEADERS,
              content: json(ref("Decision")),
            },
            ...ERRORS_4XX,
            "403": error("the caller set a context key it may not set"),
            "404": error("a tool the policy does not list, when the policy does not set `defaults.unlisted_tools`"),
          },
        },
      },
      "/v1/grade": {
        post: {
          operationId: "grade",
          summary: "grade an answer against its evidence",
          requestBody: { required: true, content: json(ref("GradeRequest")) },
          responses: {
            "200": {
              description: "the grading result, as `tessera grade --json` prints it",
              content: json({ type: "object" }),
            },
            ...ERRORS_4XX,
          },
        },
      },
      "/v1/verify": {
        post: {
          operationId: "verify",
          summary: "check claims against their evidence, or re-verify a proposal against the workspace",
          requestBody: { required: true, content: json(ref("VerifyRequest")) },
          responses: {
            "200": {
              description: "the check, as `tessera verify --json` prints it",
              content: json({ type: "object" }),
            },
            ...ERRORS_4XX,
            "422": error("a proposal, and the service has no workspace"),
          },
        },
      },
      "/v1/reviews/{id}": {
        get: {
          operationId: "review",
          summary: "a review of a held call, as `tessera review show --json` prints it",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^rv_[0-9a-f]{12}$" } },
          ],
          responses: {
            "200": { description: "the review", content: json(ref("Review")) },
            "401": ERRORS_4XX["401"],
            "404": error("no such review"),
            "503": ERRORS_4XX["503"],
          },
        },
      },
      "/healthz": {
        get: {
          operationId: "health",
          summary: "liveness: the process answers",
          security: [],
          responses: {
            "200": { description: "alive", content: json({ type: "object", properties: { status: { const: "ok" } } }) },
          },
        },
      },
      "/readyz": {
        get: {
          operationId: "ready",
          summary: "readiness: every required Source answered its last probe, and the service is not shutting down",
          security: [],
          responses: {
            "200": { description: "ready", content: json(ref("Readiness")) },
            "503": { description: "not ready", content: json(ref("Readiness")) },
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        CheckRequest: {
          type: "object",
          additionalProperties: false,
          required: ["tool"],
          properties: {
            tool: { type: "string", minLength: 1 },
            arguments: { type: "object", description: "the agent's arguments (default {})" },
            context: { type: "object", description: "trusted context: only keys the caller may set (default {})" },
          },
        },
        Decision: {
          type: "object",
          required: ["decision", "tool", "policy_digest", "checks"],
          properties: {
            decision: { enum: ["allow", "block", "hold"] },
            tool: { type: "string" },
            policy_digest: { type: "string" },
            reason: { enum: ["unlisted_tool", "tool_name_shadows"] },
            checks: { type: "array", items: { type: "object" } },
          },
        },
        GradeRequest: {
          type: "object",
          additionalProperties: false,
          required: ["input"],
          properties: {
            input: { type: "object", description: "the grading input of `tessera grade --input`" },
            acl: { type: "object", description: "the allow-list of `tessera grade --acl`" },
            evaluator: { enum: ["builtin", "bedrock", "azure", "generic"] },
            on_unsupported: { enum: ["deliver", "deliver_with_notice", "withhold"] },
            on_unavailable: { enum: ["deliver", "deliver_with_notice", "withhold"] },
          },
        },
        VerifyRequest: {
          type: "object",
          additionalProperties: false,
          properties: {
            claims: { description: "what `tessera verify --claims` reads" },
            proposal: { type: "object", description: "what `tessera verify --proposal` reads" },
            allow_partial: { type: "boolean" },
          },
        },
        Review: {
          type: "object",
          required: ["id", "state"],
          properties: {
            id: { type: "string" },
            state: { enum: ["pending", "approved", "denied", "consumed", "expired"] },
          },
        },
        Readiness: {
          type: "object",
          properties: {
            status: { enum: ["ready", "not_ready"] },
            draining: { type: "boolean" },
            sources: { type: "array", items: { type: "object" } },
          },
        },
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message"],
              properties: {
                code: { enum: [...Object.keys(ERROR_STATUS), "internal"] },
                message: { type: "string", description: "one line, starting with the field's path" },
              },
            },
          },
        },
      },
    },
  };
}
