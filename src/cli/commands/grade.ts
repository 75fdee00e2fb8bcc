import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { parseErrorLine, parseJson } from "../../platform/json.js";
import { allowListHook, authorizeEvidence } from "../../grading/authorize.js";
import { DELIVERY_ACTIONS } from "../../grading/delivery.js";
import { gradeAnswerAudited, type GradeOptions } from "../../grading/grade.js";
import { parseAccessList, parseGradeInput } from "../../grading/input.js";
import type { DeliveryAction, EvaluatorName } from "../../grading/types.js";
import { TesseraError, UsageError } from "../../platform/errors.js";
import { parse, required } from "../args.js";
import { jsonOut, styles, table } from "../../platform/format.js";
import { readInputText } from "../input.js";
import { type Command, EXIT, type Io } from "../io.js";
import { printable } from "./draft.js";

const EVALUATORS: readonly EvaluatorName[] = ["builtin", "bedrock", "azure", "generic"];

// JSON, or YAML for a .yaml/.yml file
async function readData(spec: string, what: string, io: Io): Promise<unknown> {
  let text: string;
  try {
    text = await readInputText(spec, io);
  } catch {
    throw new TesseraError("input_not_found", `cannot read ${what} \`${spec}\``);
  }
  try {
    return /\.ya?ml$/.test(spec) ? parseYaml(text) : parseJson(text);
  } catch (err) {
    throw new TesseraError("invalid_input", `cannot parse ${what} \`${spec}\`: ${parseErrorLine(err)}`);
  }
}

function action(value: string | undefined, flag: string): DeliveryAction | undefined {
  if (value === undefined) return undefined;
  if (!(DELIVERY_ACTIONS as readonly string[]).includes(value)) {
    throw new UsageError(
      `\`--${flag}\` expects one of ${DELIVERY_ACTIONS.map((a) => `\`${a}\``).join(", ")}, got \`${value}\``,
    );
  }
  return value as DeliveryAction;
}

/** `tessera grade`: grade an answer against its evidence; exit 0 supported, 1 unsupported, 4 unavailable, 2 bad input. */
export const grade: Command = {
  name: "grade",
  summary: "grade an answer against its authorized evidence: supported, unsupported or unavailable",
  usage:
    "usage: tessera grade --input <file|-> [--evaluator builtin|bedrock|azure|generic] [--json]\n" +
    "                     [--acl <file>] [--audit <file|->] [--on-unsupported <action>] [--on-unavailable <action>]\n\n" +
    "input (JSON, or YAML for .yaml/.yml): {request_id, query, answer, evidence: [{id, revision, title?, text}],\n" +
    "  evaluator?: {name, version?, threshold?}, result?, generation_digest?, timed_out?}\n" +
    "--acl <file>        authorize first: {principal, entitlement_version, allow: [document ids]}\n" +
    "--audit <file|->    append the audit record as one JSON line to <file> (`-`: print it on stderr)\n" +
    "--on-*  <action>    delivery for that state: deliver, deliver_with_notice or withhold (default: withhold)\n\n" +
    "exit codes: 0 supported, 1 unsupported, 4 unavailable, 2 bad input",
  async run(args, io) {
    const { values } = parse(args, {
      input: { type: "string" },
      evaluator: { type: "string" },
      json: { type: "boolean" },
      acl: { type: "string" },
      audit: { type: "string" },
      "on-unsupported": { type: "string" },
      "on-unavailable": { type: "string" },
    });
    const inputSpec = required(values.input, "input");
    if (inputSpec === "-" && values.acl === "-")
      throw new UsageError("`--input` and `--acl` cannot both read stdin (`-`)");
    if (values.evaluator !== undefined && !(EVALUATORS as readonly string[]).includes(values.evaluator)) {
      throw new UsageError(
        `\`--evaluator\` expects one of ${EVALUATORS.map((e) => `\`${e}\``).join(", ")}, got \`${values.evaluator}\``,
      );
    }
    const onUnsupported = action(values["on-unsupported"], "on-unsupported");
    const onUnavailable = action(values["on-unavailable"], "on-unavailable");
    const input = parseGradeInput(await readData(inputSpec, "input", io), "input");
    const evaluator = (values.evaluator ?? input.evaluator?.name ?? "builtin") as EvaluatorName;
    if (evaluator === "builtin" && input.result !== undefined)
      io.stderr.write("tessera grade: note: `result` is ignored: the builtin evaluator computes its own\n");

    let access: GradeOptions["access"];
    if (values.acl !== undefined) {
      const acl = parseAccessList(await readData(values.acl, "acl", io), "acl");
      const authorized = await authorizeEvidence(
        { request_id: input.request_id, query: input.query, documents: input.evidence },
        { id: acl.principal, entitlement_version: acl.entitlement_version },
        allowListHook(acl.allow),
      );
      access = authorized.access;
    }
    const { result, audit } = gradeAnswerAudited(input, {
      ...(values.evaluator === undefined ? {} : { evaluator }),
      ...(access === undefined ? {} : { access }),
      policy: {
        ...(onUnsupported ? { unsupported: onUnsupported } : {}),
        ...(onUnavailable ? { unavailable: onUnavailable } : {}),
      },
    });

    if (values.audit === "-") io.stderr.write(`${JSON.stringify(audit)}\n`);
    else if (values.audit !== undefined) {
      try {
        appendFileSync(resolve(io.cwd, values.audit), `${JSON.stringify(audit)}\n`);
      } catch {
        throw new TesseraError("audit_write_failed", `cannot append to \`${values.audit}\``);
      }
    }

    if (values.json) io.stdout.write(jsonOut(result));
    else {
      const s = styles(io);
      const colour = result.state === "supported" ? s.green : result.state === "unsupported" ? s.red : s.yellow;
      const num = (v: number | null) => (v === null ? "-" : String(v));
      io.stdout.write(
        table(
          ["field", "value"],
          [
            ["state", colour(result.state)],
            ["reason", result.reason],
            ["score", num(result.score)],
            ["threshold", num(result.threshold)],
            ["evidence", printable(result.evidence_ids.join(", ")) || "-"],
            ["evaluator", printable(`${result.evaluator.name} ${result.evaluator.version}`)],
            ["delivery", result.delivery],
          ],
        ),
      );
    }
    if (access !== undefined && access.denied_ids.length > 0) {
      io.stderr.write(
        `${printable(`tessera grade: not authorized for \`${access.principal}\`, not evaluated: ${access.denied_ids.map((i) => `\`${i}\``).join(", ")}`)}\n`,
      );
    }
    return result.state === "supported" ? EXIT.ok : result.state === "unsupported" ? EXIT.failed : EXIT.unavailable;
  },
};
