/**
 * A tools/call sent as a JSON-RPC notification has no answer to carry a verdict, so it is never
 * grounded and never forwarded: it is dropped, audited value-free and named on the diagnostic line
 * (adr/0064).
 * @module
 */
import { printable } from "../../platform/printable.js";
import { type CallSetup, DECISION_EVENT, gatewayDecisionEvent, measure } from "./call-setup.js";

/** The code a dropped tools/call notification is audited with. */
export const NOTIFICATION_CODE = "tools_call_notification";

/** Drop a tools/call notification with `params`: audit it and say so. */
export async function dropCallNotification(s: CallSetup, params: Record<string, unknown> | undefined): Promise<void> {
  const name = typeof params?.name === "string" ? params.name : "";
  const given = params?.arguments;
  const args =
    given !== null && typeof given === "object" && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  const call = measure(name, args, s.reviews.digest);
  s.diagnostic(
    `tessera gateway: dropped a tools/call notification for \`${printable(name)}\` (${call.callId}): a tools/call needs an id, so its verdict can be answered`,
  );
  await s
    .append(DECISION_EVENT, gatewayDecisionEvent(s, call, NOTIFICATION_CODE, null, "drop"))
    .catch((err: unknown) =>
      s.diagnostic(
        `tessera gateway: cannot record the drop of ${call.callId}: ${err instanceof Error ? err.message : String(err)}`,
      ),
    );
}
