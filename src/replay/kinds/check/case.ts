/**
 * The `check` case document, validated by one schema: a tool call and trusted context against a
 * policy, with optional fixtures, environment, live servers and their set-up (specs/cases.md).
 * @module
 */
import { z } from "zod";
import { TesseraError } from "../../../platform/errors.js";
import type { CaseContext, CaseDoc } from "../../types.js";

const mapping = (what: string) => z.record(z.string(), z.unknown(), { error: `expected a mapping of ${what}` });

const ENV = "expected a mapping of names to strings";
const LIVE = "expected a list of environment variable names, e.g. `[TESSERA_PG_URL]`";

const checkCaseSchema = z
  .strictObject({
    note: z.string(),
    kind: z.literal("check"),
    policy: z.string({ error: "expected the path of a policy file" }),
    call: z.record(z.string(), z.unknown(), { error: "expected `{tool, arguments}`" }),
    context: z.record(z.string(), z.unknown(), { error: "expected a mapping" }).optional(),
    explain: z.literal("values", { error: "expected `values`" }).optional(),
    fixtures: mapping("source name to file").optional(),
    env: z.record(z.string(), z.string({ error: ENV }), { error: ENV }).optional(),
    live: z
      .array(z.string({ error: LIVE }).regex(/^[A-Z_][A-Z0-9_]*$/, LIVE), { error: LIVE })
      .min(1, LIVE)
      .optional(),
    setup_sql: mapping("source name to `.sql` file").optional(),
    want: z.unknown(),
  })
  .superRefine((c, ctx) => {
    if (c.setup_sql !== undefined && c.live === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["setup_sql"],
        message: "a case with setup_sql names its servers' variables in `live:`",
      });
    }
  });

/** A validated `check` case. */
export type CheckCase = z.output<typeof checkCaseSchema>;

/** A malformed case: `case_invalid`, naming the file and the key. */
export function invalidCase(ctx: CaseContext, message: string): TesseraError {
  return new TesseraError("case_invalid", `${ctx.file}: ${message}`);
}

/** The case document as a `CheckCase`, or `case_invalid` naming the first wrong key. */
export function parseCheckCase(doc: CaseDoc, ctx: CaseContext): CheckCase {
  const parsed = checkCaseSchema.safeParse(doc);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === "unrecognized_keys") throw invalidCase(ctx, `unknown key "${issue.keys[0]}"`);
  const key = issue.path.filter((p) => typeof p === "string" || typeof p === "number")[0];
  throw invalidCase(ctx, `${String(key)}: ${issue.message}`);
}
