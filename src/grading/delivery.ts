/**
 * The delivery policy: what the application does with an answer in each grading state. Failing
 * open or closed is a product decision; the default withholds everything but `supported`.
 * @module
 */
import { TesseraError } from "../platform/errors.js";
import type { DeliveryAction, DeliveryPolicy } from "./types.js";

/** Every delivery action. */
export const DELIVERY_ACTIONS: readonly DeliveryAction[] = ["deliver", "deliver_with_notice", "withhold"];

/** The default policy: deliver supported answers, withhold unsupported and unavailable ones. */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = Object.freeze({
  supported: "deliver",
  unsupported: "withhold",
  unavailable: "withhold",
});

/** The default policy with `overrides` applied; an unknown action is a configuration error. */
export function deliveryPolicy(overrides: Partial<DeliveryPolicy> = {}): DeliveryPolicy {
  const policy = { ...DEFAULT_DELIVERY_POLICY };
  for (const state of ["supported", "unsupported", "unavailable"] as const) {
    const action = overrides[state];
    if (action === undefined) continue;
    if (!DELIVERY_ACTIONS.includes(action)) {
      throw new TesseraError(
        "invalid_delivery_policy",
        `expected one of ${DELIVERY_ACTIONS.map((a) => `\`${a}\``).join(", ")}, got \`${String(action)}\``,
        `policy.${state}`,
      );
    }
    policy[state] = action;
  }
  return policy;
}
