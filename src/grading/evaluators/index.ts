/**
 * Pinned evaluator adapters: name → version → adapter. A version not listed here has no known
 * response shape, so grading with it is `unavailable` (`unknown_evaluator`).
 * @module
 */
import { azure20240215 } from "./azure.js";
import { bedrock20230930 } from "./bedrock.js";
import { builtinV1 } from "./builtin.js";
import { genericV1 } from "./generic.js";
import type { EvaluatorAdapter } from "./types.js";

/** Every pinned adapter; the first version of each list is the default. */
export const EVALUATORS: Readonly<Record<string, readonly EvaluatorAdapter[]>> = {
  builtin: [builtinV1],
  bedrock: [bedrock20230930],
  azure: [azure20240215],
  generic: [genericV1],
};

/** The adapter for `name` at `version` (default: the newest pinned), or undefined. */
export function findEvaluator(name: string, version?: string): EvaluatorAdapter | undefined {
  const list = Object.hasOwn(EVALUATORS, name) ? EVALUATORS[name] : undefined;
  if (list === undefined) return undefined;
  return version === undefined ? list[0] : list.find((a) => a.version === version);
}

export { AZURE_DEFAULT_THRESHOLD, azure20240215, groundedShare } from "./azure.js";
export { bedrock20230930 } from "./bedrock.js";
export {
  BUILTIN_DEFAULT_THRESHOLD,
  type BuiltinResult,
  builtinV1,
  gradeSentences,
  type SentenceReason,
  type SentenceVerdict,
} from "./builtin.js";
export { GENERIC_DEFAULT_THRESHOLD, genericV1 } from "./generic.js";
export type { AdaptContext, Adapted, EvaluatorAdapter } from "./types.js";
