/**
 * Who may call the service: each caller is a bearer token bound to the trusted-context keys it may
 * set. One caller from `TESSERA_SERVE_TOKEN` (every context key of the policy), or several from a
 * `--callers` file. No token, no service; a token is at least 16 characters and compared in
 * constant time (adr/0123).
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { TesseraError } from "../platform/errors.js";
import { isObject } from "../platform/objects.js";
import { HttpError } from "./errors.js";

/** The environment variable holding the one caller's bearer token. */
export const SERVE_TOKEN_ENV = "TESSERA_SERVE_TOKEN";

/** Shortest accepted token: a guessable token is no protection. */
export const MIN_TOKEN_LENGTH = 16;

/** A caller: its name (for the audit log) and the context keys it may set. */
export interface Caller {
  readonly name: string;
  readonly context: ReadonlySet<string>;
}

interface Entry {
  readonly caller: Caller;
  readonly digest: Buffer;
}

/** The callers the service accepts, matched by token. */
export interface Callers {
  readonly names: readonly string[];
  /** The caller a request's `Authorization` header names; 401 when none. */
  authenticate(authorization: string | undefined): Caller;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest();

function checkToken(token: string, where: string): void {
  if (token.length < MIN_TOKEN_LENGTH)
    throw new TesseraError("token_too_short", `${where}: a token must be at least ${MIN_TOKEN_LENGTH} characters`);
}

function callersOf(entries: readonly Entry[]): Callers {
  return {
    names: entries.map((e) => e.caller.name),
    authenticate(authorization) {
      // the scheme is case-insensitive (RFC 9110 §11.1); the token is compared exactly
      const presented =
        authorization !== undefined && authorization.slice(0, 7).toLowerCase() === "bearer "
          ? authorization.slice(7)
          : undefined;
      if (presented === undefined)
        throw new HttpError("unauthorized", "authorization: a bearer token is required", {
          "www-authenticate": 'Bearer realm="tessera"',
        });
      // every token is compared, equal-length digests, so the time says nothing about which matched
      const digest = sha256(presented);
      let found: Caller | undefined;
      for (const e of entries) if (timingSafeEqual(digest, e.digest) && found === undefined) found = e.caller;
      if (found === undefined)
        throw new HttpError("unauthorized", "authorization: wrong bearer token", {
          "www-authenticate": 'Bearer realm="tessera", error="invalid_token"',
        });
      return found;
    },
  };
}

/**
 * The callers from the environment or a callers document. `policyContext` is the policy's
 * `context` names: a caller may be bound only to those, so a mistyped key fails at start.
 */
export function loadCallers(
  options: {
    readonly env: Readonly<Record<string, string | undefined>>;
    /** The parsed `--callers` document and its name, when given. */
    readonly file?: { readonly name: string; readonly document: unknown };
  },
  policyContext: readonly string[],
): Callers {
  if (options.file === undefined) {
    const token = options.env[SERVE_TOKEN_ENV];
    if (token === undefined || token === "")
      throw new TesseraError(
        "token_missing",
        `no caller is configured: set ${SERVE_TOKEN_ENV} to a bearer token, or give \`--callers <file>\`; refusing to serve without one`,
      );
    checkToken(token, SERVE_TOKEN_ENV);
    return callersOf([{ caller: { name: "default", context: new Set(policyContext) }, digest: sha256(token) }]);
  }
  return callersOf(parseCallers(options.file.name, options.file.document, options.env, policyContext));
}

const CALLER_KEYS = new Set(["name", "token", "token_env", "context"]);

function parseCallers(
  file: string,
  doc: unknown,
  env: Readonly<Record<string, string | undefined>>,
  policyContext: readonly string[],
): Entry[] {
  const bad = (path: string, message: string) => new TesseraError("input_invalid", `${file}: ${path}: ${message}`);
  if (!isObject(doc) || !Array.isArray(doc.callers))
    throw bad("callers", "expected `callers:` with a list of {name, token_env | token, context}");
  for (const k of Object.keys(doc)) if (k !== "callers") throw bad(k, "unknown key (the document has `callers`)");
  if (doc.callers.length === 0) throw bad("callers", "expected at least one caller");
  const declared = new Set(policyContext);
  const names = new Set<string>();
  const digests = new Set<string>();
  return doc.callers.map((c: unknown, i: number): Entry => {
    const at = `callers[${i}]`;
    if (!isObject(c)) throw bad(at, "expected an object {name, token_env | token, context}");
    for (const k of Object.keys(c)) if (!CALLER_KEYS.has(k)) throw bad(`${at}.${k}`, "unknown key");
    if (typeof c.name !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(c.name))
      throw bad(`${at}.name`, "expected a name of 1 to 64 letters, digits, `_`, `.` or `-`");
    if (names.has(c.name)) throw bad(`${at}.name`, `caller \`${c.name}\` is named twice`);
    names.add(c.name);
    if ((c.token === undefined) === (c.token_env === undefined))
      throw bad(at, "give exactly one of `token_env` (an environment variable) and `token`");
    let token: string;
    if (c.token_env !== undefined) {
      if (typeof c.token_env !== "string" || c.token_env === "")
        throw bad(`${at}.token_env`, "expected an environment variable name");
      const got = env[c.token_env];
      if (got === undefined || got === "")
        throw new TesseraError("token_missing", `${file}: ${at}.token_env: \`${c.token_env}\` is not set`);
      token = got;
    } else {
      if (typeof c.token !== "string") throw bad(`${at}.token`, "expected a string");
      token = c.token;
    }
    checkToken(token, `${file}: ${at}`);
    const hex = sha256(token).toString("hex");
    if (digests.has(hex)) throw bad(at, "two callers share one token: a request could not say which it is");
    digests.add(hex);
    const keys = c.context ?? [];
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string"))
      throw bad(`${at}.context`, "expected a list of context keys");
    for (const [j, k] of (keys as string[]).entries())
      if (!declared.has(k))
        throw bad(
          `${at}.context[${j}]`,
          `\`${k}\` is not a context key of the policy (${[...declared].join(", ") || "none"})`,
        );
    return { caller: { name: c.name, context: new Set(keys as string[]) }, digest: Buffer.from(hex, "hex") };
  });
}
