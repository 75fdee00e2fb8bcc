/**
 * Who a request is: a reviewer token sent as `Authorization: Bearer …`, or a session cookie the
 * login page gave for one. Each principal has a CSRF token, an HMAC under the server's own secret,
 * that every form carries in a hidden field and every POST must return.
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Reviewers } from "./reviewers.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "tessera_review";
/** How long a session lasts after the login: 12 hours (then the reviewer signs in again). */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** The most sessions kept at once; the oldest goes first. */
const MAX_SESSIONS = 1_000;

/** An authenticated request's reviewer, and the CSRF token its forms carry. */
export interface Principal {
  readonly reviewer: string;
  readonly csrf: string;
  /** How the request authenticated. */
  readonly via: "bearer" | "session";
}

/** The page's sessions and its CSRF secret, for one server's life (a restart signs everyone out). */
export class Sessions {
  readonly #secret = randomBytes(32);
  readonly #sessions = new Map<string, { reviewer: string; expires: number }>();

  constructor(
    private readonly reviewers: Reviewers,
    private readonly clock: () => number,
  ) {}

  /** The reviewer of a token, or null. */
  identify(token: string): string | null {
    return this.reviewers.identify(token);
  }

  /** A new session of `reviewer`: the cookie's value. */
  open(reviewer: string): string {
    const id = randomBytes(32).toString("base64url");
    if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    this.#sessions.set(id, { reviewer, expires: this.clock() + SESSION_TTL_MS });
    return id;
  }

  /** End the session of this request, if any. */
  close(req: IncomingMessage): void {
    const id = cookieOf(req, SESSION_COOKIE);
    if (id !== undefined) this.#sessions.delete(id);
  }

  /** Who sent `req`: a bearer token first, else the session cookie; null when neither is valid. */
  principal(req: IncomingMessage): Principal | null {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      // the scheme is case-insensitive (RFC 9110 §11.1); a wrong bearer token is never rescued by a cookie
      if (auth.slice(0, 7).toLowerCase() !== "bearer ") return null;
      const reviewer = this.identify(auth.slice(7));
      return reviewer === null ? null : { reviewer, csrf: this.#csrf(`bearer:${reviewer}`), via: "bearer" };
    }
    const id = cookieOf(req, SESSION_COOKIE);
    if (id === undefined) return null;
    const s = this.#sessions.get(id);
    if (s === undefined) return null;
    if (s.expires <= this.clock()) {
      this.#sessions.delete(id);
      return null;
    }
    return { reviewer: s.reviewer, csrf: this.#csrf(`session:${id}`), via: "session" };
  }

  /** Whether `given` is the CSRF token of `p`, compared in constant time. */
  csrfMatches(p: Principal, given: string | undefined): boolean {
    if (given === undefined) return false;
    const a = Buffer.from(given, "utf8");
    const b = Buffer.from(p.csrf, "utf8");
    return a.length === b.length && timingSafeEqual(a, b);
  }

  #csrf(subject: string): string {
    return createHmac("sha256", this.#secret).update(subject).digest("base64url");
  }
}

/** The value of cookie `name` in `req`, or undefined. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` value of a new session. */
export function sessionCookie(id: string): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`;
}

/** The `Set-Cookie` value that ends the session in the browser. */
export function clearedCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}
