/**
 * `GET /healthz` (the process answers) and `GET /readyz` (every required Source was reachable at
 * its last probe, and the service is not shutting down; adr/0124).
 * @module
 */
import type { Reply, ServeParts } from "../types.js";

/** Liveness: the process answers requests. */
export function healthRoute(): Reply {
  return { status: 200, body: `${JSON.stringify({ status: "ok" })}\n` };
}

/** Readiness: 200 when every required Source answered its last probe, else 503 naming those that did not. */
export function readyRoute(parts: ServeParts, draining: boolean): Reply {
  const r = parts.readiness.report();
  const ready = r.ready && !draining;
  const body = { status: ready ? "ready" : "not_ready", draining, sources: r.sources };
  return { status: ready ? 200 : 503, body: `${JSON.stringify(body)}\n`, headers: ready ? {} : { "retry-after": "1" } };
}
