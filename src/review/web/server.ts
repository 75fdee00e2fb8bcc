/**
 * `tessera review serve`: the review queue as local web pages over `node:http` (specs/review-page.md).
 * Every request passes the Host check; every route but `/login` needs a reviewer (a bearer token or
 * the session cookie); every POST passes the cross-site checks and carries the CSRF field. Pages are
 * server-rendered and escaped; `/app.js` is the only script and `/events` pushes the store's stamp.
 * @module
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { TesseraError } from "../../platform/errors.js";
import { approveReview, approveTool, denyReview } from "../actions.js";
import { parseDuration } from "../duration.js";
import { type GatewayStore, readAuditLines } from "../open.js";
import { diffToolDefinitions } from "../tool-diff.js";
import { REVIEW_STATES, type ReviewState } from "../types.js";
import { APP_JS } from "./app-script.js";
import { AUDIT_PAGE_SIZE, AUDIT_TYPES, auditBody, matchesSearch } from "./audit-page.js";
import type { Html } from "./escape.js";
import { allowedHosts, refusedCrossSite, refusedHost } from "./guard.js";
import { type HistoryEvent, holdBody } from "./hold-page.js";
import { page, type Section } from "./layout.js";
import { conflictBody, errorBody, loginBody, unauthorizedBody } from "./message-pages.js";
import { QUEUE_PAGE_SIZE, queueBody, type QueueView } from "./queue-page.js";
import type { Reviewers } from "./reviewers.js";
import { clearedCookie, type Principal, sessionCookie, Sessions } from "./sessions.js";
import { toolDiffBody, toolsBody } from "./tools-page.js";

/** How often the server reads the store's stamp while a page listens to `/events`. */
export const DEFAULT_POLL_MS = 1_000;
/** The largest form body accepted. */
const MAX_FORM_BYTES = 16 * 1024;
/** A review id as the store makes them. */
const REVIEW_ID = /^rv_[0-9a-f]{12}$/;

/** What the review page serves from. */
export interface ReviewPageOptions {
  readonly store: GatewayStore;
  readonly reviewers: Reviewers;
  /** The address to bind (default 127.0.0.1); requests must name it in their Host header. */
  readonly host?: string;
  /** The port (default 0: a free one). */
  readonly port?: number;
  readonly clock?: () => number;
  readonly pollMs?: number;
  /** Where refused requests are reported (the path only, never a query or a token). */
  readonly log?: (line: string) => void;
}

/** A running review page. */
export interface ReviewPage {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Headers every response carries: a strict CSP (no inline script; the style sheet by nonce), no framing, no caching. */
function securityHeaders(nonce: string): Record<string, string> {
  return {
    "content-security-policy": `default-src 'none'; script-src 'self'; style-src 'nonce-${nonce}'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
  };
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** A form body read in full (up to MAX_FORM_BYTES), as `application/x-www-form-urlencoded`. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new HttpProblem(415, "Unsupported form", "a form must be sent as application/x-www-form-urlencoded");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES)
      throw new HttpProblem(413, "Form too large", `a form is at most ${MAX_FORM_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** One path segment decoded, or a 400. */
function segment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new HttpProblem(400, "Bad address", "the address is not valid percent-encoding");
  }
}

function queueView(url: URL): QueueView {
  const state = url.searchParams.get("state") ?? "pending";
  if (state !== "all" && !REVIEW_STATES.includes(state as ReviewState))
    throw new HttpProblem(400, "Unknown state", `unknown state \`${state}\` (${REVIEW_STATES.join(", ")} or all)`);
  const tool = (url.searchParams.get("tool") ?? "").trim();
  if (tool.length > 256) throw new HttpProblem(400, "Tool name too long", "a tool name is at most 256 characters");
  const pageText = url.searchParams.get("page") ?? "1";
  const pageNo = /^[1-9][0-9]{0,6}$/.test(pageText) ? Number(pageText) : NaN;
  if (Number.isNaN(pageNo))
    throw new HttpProblem(400, "Bad page", `a page is a whole number from 1, got \`${pageText}\``);
  return { state: state as ReviewState | "all", tool, page: pageNo };
}

/** Start the review page; it serves until `close`. */
export async function startReviewPage(options: ReviewPageOptions): Promise<ReviewPage> {
  const host = options.host ?? "127.0.0.1";
  const clock = options.clock ?? Date.now;
  const log = options.log ?? (() => undefined);
  const { reviews, audit } = options.store;
  const sessions = new Sessions(options.reviewers, clock);
  let hosts: readonly string[] = [];
  const listeners = new Set<ServerResponse>();
  let lastStamp: string | null = null;
  let poller: NodeJS.Timeout | undefined;

  const auditEvents = async (): Promise<HistoryEvent[]> =>
    (await readAuditLines(options.store.location)).map((line) => {
      const e = JSON.parse(line) as Record<string, unknown> & { type: string; at: string };
      return { at: e.at, type: e.type, payload: e };
    });

  const poll = async () => {
    try {
      const stamp = await reviews.stamp();
      if (stamp === lastStamp) return;
      lastStamp = stamp;
      for (const res of listeners) res.write(`event: stamp\ndata: ${stamp}\n\n`);
    } catch (err) {
      log(`the store's stamp could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const send = (
    res: ServerResponse,
    status: number,
    nonce: string,
    body: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { ...securityHeaders(nonce), "content-type": "text/html; charset=utf-8", ...headers });
    res.end(body);
  };
  const render = (
    res: ServerResponse,
    status: number,
    nonce: string,
    title: string,
    section: Section,
    body: Html,
    principal: Principal | null,
    headers: Record<string, string> = {},
  ) => send(res, status, nonce, page({ title, section, body, principal }, nonce), headers);
  const redirect = (res: ServerResponse, nonce: string, to: string, headers: Record<string, string> = {}) => {
    res.writeHead(303, { ...securityHeaders(nonce), location: to, ...headers });
    res.end();
  };

  async function events(req: IncomingMessage, res: ServerResponse, nonce: string) {
    res.writeHead(200, {
      ...securityHeaders(nonce),
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
    });
    res.write("retry: 2000\n\n");
    if (lastStamp === null) lastStamp = await reviews.stamp();
    res.write(`event: stamp\ndata: ${lastStamp}\n\n`);
    listeners.add(res);
    poller ??= setInterval(() => void poll(), options.pollMs ?? DEFAULT_POLL_MS);
    const beat = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
    req.on("close", () => {
      clearInterval(beat);
      listeners.delete(res);
      if (listeners.size === 0 && poller !== undefined) {
        clearInterval(poller);
        poller = undefined;
      }
    });
  }

  async function decideReview(
    res: ServerResponse,
    nonce: string,
    p: Principal,
    id: string,
    verb: "approve" | "deny",
    form: URLSearchParams,
  ) {
    const now = clock();
    try {
      if (verb === "approve") {
        const ttlText = (form.get("ttl") ?? "").trim();
        let ttl: number | undefined;
        if (ttlText !== "") {
          try {
            ttl = parseDuration(ttlText, "ttl");
          } catch {
            throw new HttpProblem(
              400,
              "Bad approval time",
              `the approval time must be a duration such as 15m, 2h or 1d, of at most 366d, got \`${ttlText}\``,
            );
          }
        }
        await approveReview(reviews, audit, id, p.reviewer, now, ttl);
      } else {
        await denyReview(reviews, audit, id, p.reviewer, now, form.get("reason") ?? undefined, { pendingOnly: true });
      }
    } catch (err) {
      if (err instanceof TesseraError && (err.code === "review_not_pending" || err.code === "review_not_found")) {
        const current = await reviews.get(id, clock());
        render(
          res,
          current === null ? 404 : 409,
          nonce,
          "Already decided",
          "queue",
          conflictBody(current, id, verb),
          p,
        );
        return;
      }
      if (err instanceof TesseraError && err.code === "invalid_reason")
        throw new HttpProblem(400, "Bad reason", err.message);
      throw err;
    }
    redirect(res, nonce, `/reviews/${encodeURIComponent(id)}`);
  }

  async function route(req: IncomingMessage, res: ServerResponse, nonce: string, url: URL, p: Principal) {
    const path = url.pathname;
    const method = req.method ?? "GET";
    const get = method === "GET";
    const now = clock();
    if (path === "/app.js" && get) {
      res.writeHead(200, { ...securityHeaders(nonce), "content-type": "text/javascript; charset=utf-8" });
      res.end(APP_JS);
      return;
    }
    if (path === "/events" && get) return events(req, res, nonce);
    if (path === "/" && get) {
      const v = queueView(url);
      const { reviews: list, total } = await reviews.queue(now, {
        ...(v.state === "all" ? {} : { state: v.state }),
        ...(v.tool === "" ? {} : { tool: v.tool }),
        limit: QUEUE_PAGE_SIZE,
        offset: (v.page - 1) * QUEUE_PAGE_SIZE,
      });
      return render(res, 200, nonce, "Queue", "queue", queueBody(v, list, total, now), p);
    }
    const reviewMatch = /^\/reviews\/([^/]+)(\/approve|\/deny)?$/.exec(path);
    if (reviewMatch !== null) {
      const id = segment(reviewMatch[1]!);
      const action = reviewMatch[2];
      if (!REVIEW_ID.test(id)) throw new HttpProblem(404, "No such review", `no review \`${id}\``);
      if (action === undefined && get) {
        const r = await reviews.get(id, now);
        if (r === null) throw new HttpProblem(404, "No such review", `no review \`${id}\``);
        const history = (await auditEvents()).filter((e) => e.payload.review_id === id);
        return render(res, 200, nonce, `Review ${id}`, "queue", holdBody(r, history, p, now), p);
      }
      if (action !== undefined && method === "POST") {
        return decideReview(res, nonce, p, id, action === "/approve" ? "approve" : "deny", await checkedForm(req, p));
      }
      throw new HttpProblem(405, "Method not allowed", `${method} is not allowed here`);
    }
    if (path === "/tools" && get)
      return render(res, 200, nonce, "Tool changes", "tools", toolsBody(await reviews.tools()), p);
    const toolMatch = /^\/tools\/([^/]+)(\/approve)?$/.exec(path);
    if (toolMatch !== null) {
      const tool = segment(toolMatch[1]!);
      if (toolMatch[2] === undefined && get) {
        const pin = (await reviews.tools()).find((x) => x.tool === tool);
        if (pin === undefined) throw new HttpProblem(404, "No such tool", `no pinned tool \`${tool}\``);
        if (pin.pending_digest === null)
          throw new HttpProblem(404, "Nothing changed", `tool \`${tool}\` has no changed definition to review`);
        const diff = diffToolDefinitions(tool, pin.definition, pin.pending_definition);
        return render(res, 200, nonce, `Changed: ${tool}`, "tools", toolDiffBody(pin, diff, p), p);
      }
      if (toolMatch[2] !== undefined && method === "POST") {
        const form = await checkedForm(req, p);
        const digest = form.get("digest") ?? "";
        if (!/^sha256:[0-9a-f]{64}$/.test(digest))
          throw new HttpProblem(400, "Bad digest", "the form must name the full sha256 digest of the definition shown");
        try {
          await approveTool(reviews, audit, tool, digest, p.reviewer, now);
        } catch (err) {
          if (err instanceof TesseraError && (err.code === "tool_digest_mismatch" || err.code === "tool_not_changed"))
            throw new HttpProblem(409, "Not approved", err.message);
          if (err instanceof TesseraError && err.code === "tool_not_pinned")
            throw new HttpProblem(404, "No such tool", err.message);
          throw err;
        }
        return redirect(res, nonce, "/tools");
      }
      throw new HttpProblem(405, "Method not allowed", `${method} is not allowed here`);
    }
    if (path === "/audit" && get) {
      const search = {
        tool: (url.searchParams.get("tool") ?? "").trim(),
        review: (url.searchParams.get("review") ?? "").trim(),
        type: (url.searchParams.get("type") ?? "").trim(),
      };
      if (search.type !== "" && !(AUDIT_TYPES as readonly string[]).includes(search.type))
        throw new HttpProblem(400, "Unknown event type", `unknown event type \`${search.type}\``);
      const matching = (await auditEvents()).filter((e) => matchesSearch(e, search));
      const newest = matching.slice(-AUDIT_PAGE_SIZE).reverse();
      return render(res, 200, nonce, "Audit trail", "audit", auditBody(search, newest, matching.length), p);
    }
    if (path === "/logout" && method === "POST") {
      await checkedForm(req, p);
      sessions.close(req);
      return redirect(res, nonce, "/login", { "set-cookie": clearedCookie() });
    }
    throw new HttpProblem(404, "Not found", `no page \`${path}\``);
  }

  /** The POST's form, once it passed the cross-site checks and carries this reviewer's CSRF token. */
  async function checkedForm(req: IncomingMessage, p: Principal): Promise<URLSearchParams> {
    const crossSite = refusedCrossSite(req, hosts);
    if (crossSite !== null) throw new HttpProblem(403, "Refused", `forbidden: ${crossSite}`);
    const form = await readForm(req);
    if (!sessions.csrfMatches(p, form.get("csrf") ?? undefined))
      throw new HttpProblem(
        403,
        "Refused",
        "forbidden: the form's CSRF token is missing or wrong (reload the page and try again)",
      );
    return form;
  }

  async function login(req: IncomingMessage, res: ServerResponse, nonce: string) {
    if (req.method === "GET") return render(res, 200, nonce, "Sign in", "none", loginBody(null), null);
    if (req.method !== "POST") throw new HttpProblem(405, "Method not allowed", `${req.method} is not allowed here`);
    const crossSite = refusedCrossSite(req, hosts);
    if (crossSite !== null) throw new HttpProblem(403, "Refused", `forbidden: ${crossSite}`);
    const reviewer = sessions.identify((await readForm(req)).get("token") ?? "");
    if (reviewer === null) {
      log("refused POST /login: wrong token");
      return render(res, 401, nonce, "Sign in", "none", loginBody("That token is not a reviewer's."), null);
    }
    redirect(res, nonce, "/", { "set-cookie": sessionCookie(sessions.open(reviewer)) });
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const nonce = randomBytes(16).toString("base64");
    const path = (req.url ?? "/").split("?")[0]!;
    let principal: Principal | null = null;
    try {
      const foreign = refusedHost(req, hosts);
      if (foreign !== null) throw new HttpProblem(403, "Refused", `forbidden: ${foreign}`);
      const url = new URL(req.url ?? "/", "http://review.invalid");
      if (url.pathname === "/login") return await login(req, res, nonce);
      principal = sessions.principal(req);
      if (principal === null) {
        log(`refused ${req.method ?? "?"} ${JSON.stringify(path).slice(1, -1)}: no reviewer`);
        return render(res, 401, nonce, "Sign in", "none", unauthorizedBody(), null, {
          "www-authenticate": 'Bearer realm="tessera-review"',
        });
      }
      await route(req, res, nonce, url, principal);
    } catch (err) {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof HttpProblem) {
        if (err.status === 403)
          log(`refused ${req.method ?? "?"} ${JSON.stringify(path).slice(1, -1)}: ${err.message}`);
        return render(res, err.status, nonce, err.title, "none", errorBody(err.title, err.message, "/"), principal);
      }
      const message = err instanceof Error ? err.message : String(err);
      log(`${req.method ?? "?"} ${JSON.stringify(path).slice(1, -1)} failed: ${message}`);
      const status = err instanceof TesseraError && err.code === "store_unavailable" ? 503 : 500;
      return render(
        res,
        status,
        nonce,
        "Something failed",
        "none",
        errorBody("Something failed", message, "/"),
        principal,
      );
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new TesseraError("listen_failed", `cannot listen on ${host}:${options.port ?? 0}: ${err.code ?? err.message}`),
      ),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, port);
  return {
    url: `http://${hosts[0]}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        if (poller !== undefined) clearInterval(poller);
        for (const res of listeners) res.end();
        listeners.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
