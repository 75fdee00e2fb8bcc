/**
 * Outcome combination for tool-call decisions (DESIGN.md §5).
 * @module
 */

/** What a gate decides for a tool call, and what each check contributes. */
export type Outcome = "allow" | "hold" | "block";

const RANK: Readonly<Record<Outcome, number>> = { allow: 0, hold: 1, block: 2 };

/** `block` if any outcome blocks, else `hold` if any holds, else `allow` (also for none). Order-independent. */
export function combineOutcomes(outcomes: Iterable<Outcome>): Outcome {
  let worst: Outcome = "allow";
  for (const o of outcomes) if (RANK[o] > RANK[worst]) worst = o;
  return worst;
}
