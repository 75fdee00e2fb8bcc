/**
 * The service's routes: method, path and what each needs (a caller, a body), and the match of a
 * request against them — an unknown path is 404, a known path with another method 405 with `Allow`.
 * The OpenAPI document (openapi.ts) lists exactly these.
 * @module
 */
import { HttpError } from "./errors.js";

/** The handler a route runs (service.ts maps each to its routes/ file). */
export type RouteName = "check" | "grade" | "verify" | "review" | "health" | "ready";

/** One route. */
export interface Route {
  readonly method: "GET" | "POST";
  /** The path, with `{id}` for a path parameter. */
  readonly path: string;
  readonly name: RouteName;
  /** Needs a caller's bearer token (and counts against the concurrency limit). */
  readonly auth: boolean;
  /** Reads a JSON body. */
  readonly body: boolean;
}

/** Every route of the service. */
export const ROUTES: readonly Route[] = [
  { method: "POST", path: "/v1/check", name: "check", auth: true, body: true },
  { method: "POST", path: "/v1/grade", name: "grade", auth: true, body: true },
  { method: "POST", path: "/v1/verify", name: "verify", auth: true, body: true },
  { method: "GET", path: "/v1/reviews/{id}", name: "review", auth: true, body: false },
  { method: "GET", path: "/healthz", name: "health", auth: false, body: false },
  { method: "GET", path: "/readyz", name: "ready", auth: false, body: false },
];

function matches(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    if (w.startsWith("{") && w.endsWith("}")) {
      if (got[i] === "") return null;
      params[w.slice(1, -1)] = got[i]!;
    } else if (w !== got[i]) return null;
  }
  return params;
}

/** The route of `method` and `url` with its path parameters, or a 404 / 405 refusal. */
export function route(
  method: string | undefined,
  url: string | undefined,
): { route: Route; params: Record<string, string> } {
  const path = (url ?? "/").split("?")[0]!;
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const params = matches(r.path, path);
    if (params === null) continue;
    if (r.method === method || (r.method === "GET" && method === "HEAD")) return { route: r, params };
    allowed.push(r.method);
  }
  // the path only, as JSON text: a query string may carry a token a client put in the wrong place
  const shown = JSON.stringify(path.slice(0, 200));
  if (allowed.length === 0)
    throw new HttpError(
      "route_not_found",
      `(path): no route ${shown} (routes: ${ROUTES.map((r) => `${r.method} ${r.path}`).join(", ")})`,
    );
  throw new HttpError(
    "method_not_allowed",
    `(method): ${shown} takes ${allowed.join(", ")}, not ${String(method).slice(0, 16)}`,
    {
      allow: allowed.join(", "),
    },
  );
}
