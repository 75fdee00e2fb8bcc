/**
 * One request from start to answer: match the route, authenticate the caller, admit it under the
 * concurrency limit, read its body, run its handler within the deadline, and answer JSON — a
 * refusal as `{error: {code, message}}`, never a stack trace. Shutting down, it refuses new work
 * and waits for the requests it admitted.
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Callers } from "./auth.js";
import { readJsonBody } from "./body.js";
import { errorBody, HttpError } from "./errors.js";
import { Admission, withDeadline } from "./limits.js";
import { type Route, route } from "./router.js";
import { checkRoute } from "./routes/check.js";
import { gradeRoute } from "./routes/grade.js";
import { healthRoute, readyRoute } from "./routes/health.js";
import { reviewRoute } from "./routes/reviews.js";
import { verifyRoute } from "./routes/verify.js";
import type { Reply, ServeParts } from "./types.js";

/** The bounds of one service. */
export interface ServiceLimits {
  readonly maxBodyBytes: number;
  readonly maxConcurrent: number;
  readonly deadlineMs: number;
}

/** A service: its request listener, and its shutdown. */
export interface Service {
  /** The `node:http` request listener. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** Refuse new work from now on (503 `shutting_down`), and resolve once the admitted requests are answered. */
  drain(): Promise<void>;
  readonly draining: boolean;
}

function refusal(err: HttpError): Reply {
  return { status: err.status, body: errorBody(err), headers: err.headers };
}

/** A service over `parts`, accepting `callers`, within `limits`. */
export function createService(
  parts: ServeParts,
  callers: Callers,
  limits: ServiceLimits,
  log: (line: string) => void,
): Service {
  const admission = new Admission(limits.maxConcurrent);
  let draining = false;

  async function run(r: Route, params: Record<string, string>, req: IncomingMessage): Promise<Reply> {
    if (r.name === "health") return healthRoute();
    if (r.name === "ready") return readyRoute(parts, draining);
    if (draining)
      throw new HttpError("shutting_down", "(service): shutting down; retry on another instance", {
        "retry-after": "1",
      });
    const caller = callers.authenticate(req.headers.authorization);
    const late = new AbortController();
    const work = admission.run(async () => {
      const body = r.body ? await readJsonBody(req, limits.maxBodyBytes, late.signal) : undefined;
      switch (r.name) {
        case "check":
          return checkRoute(parts, caller, body);
        case "grade":
          return gradeRoute(parts, body);
        case "verify":
          return verifyRoute(parts, body);
        default:
          return reviewRoute(parts, params.id!);
      }
    });
    return withDeadline(work, limits.deadlineMs, () => late.abort());
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: Reply;
    let late = false;
    try {
      const matched = route(req.method, req.url);
      reply = await run(matched.route, matched.params, req);
    } catch (err) {
      if (err instanceof HttpError) {
        reply = refusal(err);
        late = err.code === "deadline_exceeded";
      } else {
        // a defect, never an input: logged, answered without detail, and nothing was allowed
        log(`tessera serve: ${req.method ?? "?"} request failed: ${err instanceof Error ? err.message : String(err)}`);
        reply = {
          status: 500,
          body: `${JSON.stringify({ error: { code: "internal", message: "(service): internal error" } })}\n`,
        };
      }
      if (!req.complete) req.resume(); // drop an unread body, so the connection stays usable
    }
    if (res.destroyed) return;
    // a body still arriving past the deadline is never waited for: the connection is closed once
    // answered, which ends the read and frees its admission slot
    const unread = late && !req.complete;
    res.writeHead(reply.status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(reply.body),
      "cache-control": "no-store",
      ...(draining || unread ? { connection: "close" } : {}),
      ...reply.headers,
    });
    res.end(reply.body, () => {
      if (unread) req.socket.destroy();
    });
  }

  return {
    listener: (req, res) => void answer(req, res),
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
      return admission.drain();
    },
  };
}
