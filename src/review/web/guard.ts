/**
 * What every request to the review page must pass before a route sees it: a Host header naming the
 * bound address (DNS rebinding), and for a state change an Origin of the page itself when one is
 * sent and a `Sec-Fetch-Site` of `same-origin` when one is sent (a forged cross-site form post).
 * @module
 */
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** The Host header values the page answers to: its address and port (and `localhost` for a loopback address). */
export function allowedHosts(host: string, port: number): readonly string[] {
  const name = isIP(host) === 6 ? `[${host}]` : host;
  const out = [`${name}:${port}`.toLowerCase()];
  if (host === "127.0.0.1" || host === "::1") out.push(`localhost:${port}`);
  return out;
}

/**
 * Why a request's Host is refused, or null when it names the bound address; an `Origin`, when one
 * is sent (with any method), must be the page's own too.
 */
export function refusedHost(req: IncomingMessage, hosts: readonly string[]): string | null {
  const host = req.headers.host;
  if (host === undefined || !hosts.includes(host.toLowerCase())) return `foreign host \`${host ?? ""}\``;
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.map((h) => `http://${h}`).includes(origin.toLowerCase()))
    return `foreign origin \`${origin}\``;
  return null;
}

/**
 * Why a POST is refused as cross-site, or null. A browser sends `Origin` with every POST and
 * `Sec-Fetch-Site` with every request; a client that sends neither (curl) still needs the CSRF field.
 */
export function refusedCrossSite(req: IncomingMessage, hosts: readonly string[]): string | null {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return `a \`${site}\` request cannot change anything`;
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.map((h) => `http://${h}`).includes(origin.toLowerCase()))
    return `foreign origin \`${origin}\``;
  return null;
}
