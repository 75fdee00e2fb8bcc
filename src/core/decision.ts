/**
 * Outcome combination for tool-call decisions (specs/json-shapes.md).
 * @module
 */

/** What a gate decides for a tool call, and what each check contributes. */
export type Outcome = "allow" | "hold" | "block";

const RANK: Readonly<Record<Outcome, number>> = { allow: 0, hold: 1, block: 2 };

/**
 * `block` if any outcome blocks, else `hold` if any holds, else `allow` (also for none).
 * Order-independent. A value that is not an outcome counts as `block` (fail closed).
 */
export function combineOutcomes(outcomes: Iterable<Outcome>): Outcome {
  let worst: Outcome = "allow";
  for (const o of outcomes) {
    const rank = Object.hasOwn(RANK, o) ? RANK[o] : RANK.block;
    if (rank > RANK[worst]) worst = rank === RANK.block ? "block" : o;
  }
  return worst;
}
