/**
 * Case kind `check`: a tool call and trusted context against a policy, compared with `want`
 * (specs/cases.md). The case is validated by its schema (check/case.ts); its data come from
 * fixtures or recordings (check/fixtures.ts, check/replay.ts) or from live servers it sets up
 * (check/live.ts); otherwise the policy's own sources are used (adr/0040).
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPolicy, PolicyError } from "../../checks/load.js";
import type { Policy } from "../../checks/policy.js";
import { TesseraError } from "../../platform/errors.js";
import { createGate } from "../../gate.js";
import type { RecordingFile } from "../../sources/recorded.js";
import type { CaseContext, CaseDoc, CaseKindRunner, CaseOutcome } from "../types.js";
import { compareWant } from "../want.js";
import { parseCheckCase } from "./check/case.js";
import { buildFixtures, loadRecordings } from "./check/fixtures.js";
import { liveEnv, runSetup } from "./check/live.js";
import { type Miss, plain, replayOpener } from "./check/replay.js";

export { LIVE_DEFAULTS } from "./check/live.js";

function errorShape(err: unknown): Record<string, unknown> {
  if (err instanceof PolicyError) {
    const first = err.issues.find((i) => i.severity === "error") ?? err.issues[0]!;
    return { error: { code: first.code, path: first.path, line: first.line, message: first.message } };
  }
  if (err instanceof TesseraError) return { error: { code: err.code, message: err.message } };
  throw err;
}

function outcome(want: unknown, got: unknown): CaseOutcome {
  const failures = compareWant(want, got);
  return { passed: failures.length === 0, failures, got };
}

/** The `check` case runner. */
export const checkKind: CaseKindRunner = {
  kind: "check",
  async run(doc: CaseDoc, ctx: CaseContext): Promise<CaseOutcome> {
    const c = parseCheckCase(doc, ctx);
    const live = liveEnv(c.live, { ...ctx.env, ...(c.env ?? {}) });
    if ("stop" in live) return live.stop;
    const tmp = c.fixtures !== undefined ? mkdtempSync(join(tmpdir(), "tessera-case-")) : null;
    try {
      let policy: Policy;
      try {
        policy = await loadPolicy(c.policy, { env: live.env, cwd: ctx.dir });
      } catch (err) {
        return outcome(c.want, errorShape(err));
      }
      const recorded =
        c.fixtures !== undefined ? await loadRecordings(policy, c.fixtures, ctx) : new Map<string, RecordingFile>();
      if (c.fixtures !== undefined && tmp !== null) policy = await buildFixtures(policy, c.fixtures, ctx, tmp);
      if (c.setup_sql !== undefined) {
        const stop = await runSetup(policy, c.setup_sql, ctx, live.defaulted);
        if (stop !== null) return stop;
      }
      const { audit: _audit, ...quiet } = policy; // replaying a case never writes the policy's audit log
      const misses: Miss[] = [];
      const gate =
        recorded.size > 0
          ? createGate(quiet, { openSource: replayOpener(quiet, recorded, misses) })
          : createGate(quiet);
      let got: unknown;
      try {
        got = plain(
          await gate.check(c.call as never, c.context ?? {}, c.explain === "values" ? { explain: "values" } : {}),
        );
      } catch (err) {
        got = errorShape(err);
      } finally {
        await gate.close();
      }
      const result = outcome(c.want, got);
      if (misses.length === 0) return result;
      const unrecorded = misses.map(
        (m) => `source \`${m.source}\`: no recorded response for ${m.values}; re-record the fixture`,
      );
      return { passed: false, failures: [...unrecorded, ...result.failures], got };
    } finally {
      if (tmp !== null) rmSync(tmp, { recursive: true, force: true });
    }
  },
};
