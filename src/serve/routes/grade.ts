/**
 * `POST /v1/grade`: grade an answer against its evidence and answer the result exactly as
 * `tessera grade --json` prints it, from the same library calls (src/grading/). The grading audit
 * record goes to the audit log as a `tessera.grade.v1` event before the answer is sent.
 * @module
 */
import { allowListHook, authorizeEvidence } from "../../grading/authorize.js";
import { DELIVERY_ACTIONS } from "../../grading/delivery.js";
import { type GradeOptions, gradeAnswerAudited } from "../../grading/grade.js";
import { parseAccessList, parseGradeInput } from "../../grading/input.js";
import type { DeliveryAction, EvaluatorName } from "../../grading/types.js";
import { TesseraError } from "../../platform/errors.js";
import { jsonOut } from "../../platform/format.js";
import { HttpError } from "../errors.js";
import { objectWith } from "../shape.js";
import type { Reply, ServeParts } from "../types.js";

/** The audit event of a grade. */
export const GRADE_EVENT = "tessera.grade.v1";

const EVALUATORS: readonly EvaluatorName[] = ["builtin", "bedrock", "azure", "generic"];

function choice<T extends string>(value: unknown, allowed: readonly T[], path: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value))
    throw new HttpError("body_invalid", `${path}: expected one of ${allowed.map((a) => `\`${a}\``).join(", ")}`);
  return value as T;
}

/** Grade one `/v1/grade` request: `{input, acl?, evaluator?, on_unsupported?, on_unavailable?}`. */
export async function gradeRoute(parts: ServeParts, body: unknown): Promise<Reply> {
  const b = objectWith(
    body,
    ["input", "acl", "evaluator", "on_unsupported", "on_unavailable"],
    '{"input": {...}, "acl"?: {...}, "evaluator"?: "...", "on_unsupported"?: "...", "on_unavailable"?: "..."}',
  );
  if (b.input === undefined) throw new HttpError("body_invalid", "input: required (the grading input)");
  const evaluator = choice(b.evaluator, EVALUATORS, "evaluator");
  const onUnsupported = choice<DeliveryAction>(b.on_unsupported, DELIVERY_ACTIONS, "on_unsupported");
  const onUnavailable = choice<DeliveryAction>(b.on_unavailable, DELIVERY_ACTIONS, "on_unavailable");
  let graded: ReturnType<typeof gradeAnswerAudited>;
  try {
    const input = parseGradeInput(b.input, "input");
    let access: GradeOptions["access"];
    if (b.acl !== undefined) {
      const acl = parseAccessList(b.acl, "acl");
      const authorized = await authorizeEvidence(
        { request_id: input.request_id, query: input.query, documents: input.evidence },
        { id: acl.principal, entitlement_version: acl.entitlement_version },
        allowListHook(acl.allow),
      );
      access = authorized.access;
    }
    graded = gradeAnswerAudited(input, {
      ...(evaluator === undefined ? {} : { evaluator }),
      ...(access === undefined ? {} : { access }),
      policy: {
        ...(onUnsupported ? { unsupported: onUnsupported } : {}),
        ...(onUnavailable ? { unavailable: onUnavailable } : {}),
      },
    });
  } catch (err) {
    if (err instanceof TesseraError) throw new HttpError("body_invalid", err.message);
    throw err;
  }
  try {
    await parts.audit.append(GRADE_EVENT, { ...graded.audit });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new HttpError("store_unavailable", `(store): the grade could not be recorded: ${message}`, {
      "retry-after": "1",
    });
  }
  return { status: 200, body: jsonOut(graded.result) };
}
