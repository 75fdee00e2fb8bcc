/**
 * Case kind `grade`: one grading input (inline, or a JSON/YAML file beside the case), optionally a
 * saved evaluator response from a fixture file, an allow-list authorization (inline, or a file as
 * `tessera grade --acl` reads) and a delivery policy;
 * `want` is matched against the grading record, with the audit record under `audit`.
 * @module
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { parseErrorLine, parseJson } from "../../platform/json.js";
import { allowListHook, authorizeEvidence } from "../../grading/authorize.js";
import { deliveryPolicy } from "../../grading/delivery.js";
import { gradeAnswerAudited } from "../../grading/grade.js";
import { parseAccessList, parseGradeInput } from "../../grading/input.js";
import type { DeliveryPolicy, EvaluatorName, GradeInput } from "../../grading/types.js";
import { TesseraError } from "../../platform/errors.js";
import type { CaseDoc, CaseKindRunner } from "../types.js";
import { compareWant } from "../want.js";
import { isObject } from "../../platform/objects.js";

const KEYS = new Set(["note", "kind", "want", "input", "result_file", "access", "evaluator", "policy"]);
const EVALUATOR_NAMES = ["builtin", "bedrock", "azure", "generic"];

function readData(file: string, key: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new TesseraError("case_invalid", `no such file \`${file}\``, key);
  }
  try {
    return file.endsWith(".json") ? parseJson(text) : parseYaml(text);
  } catch (err) {
    throw new TesseraError("case_invalid", `cannot parse \`${file}\`: ${parseErrorLine(err)}`, key);
  }
}

/** Build the grading input, options and authorization of a `grade` case; throws `TesseraError` for a malformed case. */
export async function prepareGradeCase(doc: CaseDoc, dir: string) {
  for (const k of Object.keys(doc))
    if (!KEYS.has(k)) throw new TesseraError("case_invalid", `unknown key \`${k}\` in a grade case`, k);
  const rawInput = typeof doc.input === "string" ? readData(resolve(dir, doc.input), "input") : doc.input;
  let input: GradeInput = parseGradeInput(rawInput, "input");
  if (doc.result_file !== undefined) {
    if (typeof doc.result_file !== "string")
      throw new TesseraError("case_invalid", "expected a file path", "result_file");
    if (input.result !== undefined)
      throw new TesseraError("case_invalid", "give `result` or `result_file`, not both", "result_file");
    input = { ...input, result: readData(resolve(dir, doc.result_file), "result_file") };
  }
  if (doc.evaluator !== undefined && (typeof doc.evaluator !== "string" || !EVALUATOR_NAMES.includes(doc.evaluator))) {
    throw new TesseraError(
      "case_invalid",
      `expected one of ${EVALUATOR_NAMES.map((n) => `\`${n}\``).join(", ")}`,
      "evaluator",
    );
  }
  if (doc.policy !== undefined) {
    const p = doc.policy;
    if (!isObject(p))
      throw new TesseraError("case_invalid", "expected a mapping of state to delivery action", "policy");
    for (const k of Object.keys(p)) {
      if (!["supported", "unsupported", "unavailable"].includes(k))
        throw new TesseraError("case_invalid", `unknown state \`${k}\``, `policy.${k}`);
    }
  }
  const policy: DeliveryPolicy = deliveryPolicy((doc.policy ?? {}) as Partial<DeliveryPolicy>);
  let access;
  if (doc.access !== undefined) {
    const acl = parseAccessList(
      typeof doc.access === "string" ? readData(resolve(dir, doc.access), "access") : doc.access,
      "access",
    );
    const authorized = await authorizeEvidence(
      { request_id: input.request_id, query: input.query, documents: input.evidence },
      { id: acl.principal, entitlement_version: acl.entitlement_version },
      allowListHook(acl.allow),
    );
    access = authorized.access;
  }
  return {
    input,
    options: {
      ...(doc.evaluator === undefined ? {} : { evaluator: doc.evaluator as EvaluatorName }),
      ...(access === undefined ? {} : { access }),
      policy,
    },
  };
}

/** Runs `grade` cases. */
export const gradeKind: CaseKindRunner = {
  kind: "grade",
  async run(doc, ctx) {
    const { input, options } = await prepareGradeCase(doc, ctx.dir);
    const { result, audit } = gradeAnswerAudited(input, options);
    const got = { ...result, audit };
    const failures = compareWant(doc.want, got);
    return { passed: failures.length === 0, failures, got };
  },
};
