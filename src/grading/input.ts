/**
 * Validation of grading input (specs/grading.md) from untrusted JSON or YAML: the CLI, cases and other
 * callers parse with `parseGradeInput`, which names the path of the first bad value.
 * @module
 */
import { z } from "zod";
import { TesseraError } from "../platform/errors.js";
import type { GradeInput } from "./types.js";

const unit = z.number().min(0).max(1);

const document = z.strictObject({
  id: z.string().min(1),
  revision: z.string().min(1),
  title: z.string().optional(),
  text: z.string(),
});

/** The zod schema of a grading input; `result` is the evaluator's raw response and is validated by its adapter. */
export const gradeInputSchema = z
  .strictObject({
    request_id: z.string().min(1),
    query: z.string(),
    answer: z.string(),
    evidence: z.array(document),
    evaluator: z
      .strictObject({
        name: z.enum(["builtin", "bedrock", "azure", "generic"]),
        version: z.string().min(1).optional(),
        threshold: unit.optional(),
      })
      .optional(),
    result: z.unknown().optional(),
    generation_digest: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, "expected `sha256:` and 64 lower-case hex digits")
      .optional(),
    timed_out: z.boolean().optional(),
  })
  .superRefine((input, ctx) => {
    // `id@revision` names one text; two texts under it leave "the evidence" undefined
    const seen = new Map<string, string>();
    input.evidence.forEach((d, i) => {
      const key = JSON.stringify([d.id, d.revision]);
      const text = seen.get(key);
      if (text === undefined) seen.set(key, d.text);
      else if (text !== d.text) {
        ctx.addIssue({
          code: "custom",
          path: ["evidence", i],
          message: `document \`${d.id}\` revision \`${d.revision}\` is given twice with different text`,
        });
      }
    });
  });

/** An allow-list authorization: which document ids `principal` may retrieve under `entitlement_version`. */
export const accessSchema = z.strictObject({
  principal: z.string().min(1),
  entitlement_version: z.string().min(1),
  allow: z.array(z.string().min(1)),
});

/** A parsed allow-list authorization. */
export type AccessList = z.infer<typeof accessSchema>;

/** Parse an allow-list authorization; throws `TesseraError` (`invalid_input`) naming the bad path. */
export function parseAccessList(value: unknown, root = "access"): AccessList {
  const parsed = accessSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TesseraError("invalid_input", issueMessage(issue), issuePath(root, issue.path));
  }
  return parsed.data;
}

/** A zod issue path as `a.b[0].c`, prefixed by `root`. */
export function issuePath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

/** A zod error as one lower-case line. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  const m = issue.message
    .replace(/\.$/, "")
    .replace(/\n.*/s, "")
    .replace(/"([^"\n]*)"/g, "`$1`");
  return m.charAt(0).toLowerCase() + m.slice(1);
}

/** Parse a grading input; throws `TesseraError` (`invalid_input`) naming the path of the first bad value. */
export function parseGradeInput(value: unknown, root = "input"): GradeInput {
  const parsed = gradeInputSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TesseraError("invalid_input", issueMessage(issue), issuePath(root, issue.path));
  }
  return parsed.data as GradeInput;
}
