import type { CaseKindRunner } from "./types.js";

/**
 * Every case kind and where its runner lives. Runners load lazily so a run of `check` cases never
 * loads the evidence store, and the reverse.
 */
export const CASE_KINDS: Readonly<Record<string, () => Promise<CaseKindRunner>>> = {
  check: async () => (await import("./kinds/check.js")).checkKind,
  grade: async () => (await import("./kinds/grade.js")).gradeKind,
  draft: async () => (await import("./kinds/draft.js")).draftKind,
  verify: async () => (await import("./kinds/verify.js")).verifyKind,
  ground: async () => (await import("./kinds/ground.js")).groundKind,
};
