/**
 * The HTTP Source (Node's built-in fetch): a GET of `base_url` + the check's `path`, where each
 * `{name}` is percent-encoded so a value can never change the host, a path segment or a query key;
 * rows come from the JSON body (at `rows:`). Only same-origin redirects are followed. Header values
 * (secrets) never appear in an error message.
 * @module
 */
import type { HttpRequest, PreparedRequest, Source, SourceInit, SourceResult } from "../checks/source.js";
import { SourceError } from "../checks/source.js";
import type { Scalar } from "../core/index.js";
import { TesseraError } from "../platform/errors.js";
import { errnoOf, parseJsonAnswer, rowsAt, UNREACHABLE_ERRNO } from "./adapter-util.js";
import { sourceConfig } from "./config.js";

const MAX_REDIRECTS = 5;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

type Piece = { readonly literal: string } | { readonly name: string };

/** A `path:` template compiled once per check. */
export interface HttpTemplate {
  /** Binding names the path reads, in order of first appearance. */
  readonly parameters: readonly string[];
  /** The bound path and query (`/orders/1001?x=y`), every value percent-encoded. */
  bind(params: Readonly<Record<string, Scalar>>): string;
}

function invalid(message: string): SourceError {
  return new SourceError("source_invalid_query", message);
}

function pieces(text: string, parameters: string[]): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index > last) out.push({ literal: text.slice(last, m.index) });
    const name = m[1]!;
    out.push({ name });
    if (!parameters.includes(name)) parameters.push(name);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ literal: text.slice(last) });
  for (const p of out) {
    if ("literal" in p && /[{}]/.test(p.literal))
      throw invalid("a `{` or `}` in `path` that is not a `{name}` placeholder");
  }
  return out;
}

/**
 * Percent-encode every byte except the unreserved characters `A-Z a-z 0-9 - . _ ~`, so `/`, `?`,
 * `#`, `&`, `=`, `%`, `@`, `\`, CR and LF in a value are always data.
 */
export function encodeValue(v: Scalar): string {
  let text: string;
  if (typeof v === "string") text = v;
  else if (typeof v === "number") {
    if (!Number.isFinite(v)) throw invalid("a non-finite number cannot be placed in a path");
    text = String(v);
  } else if (typeof v === "bigint") text = v.toString();
  else if (typeof v === "boolean") text = v ? "true" : "false";
  else throw invalid("a null value cannot be placed in a path");
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    throw invalid("a bound value is not well-formed unicode");
  }
  return encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const join = (ps: readonly Piece[], params: Readonly<Record<string, Scalar>>): string =>
  ps.map((p) => ("literal" in p ? p.literal : encodeValue(params[p.name] as Scalar))).join("");

/**
 * Compile a check's `path` (`/orders/{value}?customer={customer_id}`): placeholders may fill path
 * segments or query values, never query keys; a bound segment that would be empty, `.` or `..`
 * is refused, since URL parsing would drop or climb it.
 * @example compileHttpPath("/orders/{value}").bind({ value: "a/b" }) // "/orders/a%2Fb"
 */
export function compileHttpPath(path: string): HttpTemplate {
  if (!path.startsWith("/")) throw invalid("`path` must start with `/`");
  if (path.includes("#")) throw invalid("`path` must not contain a fragment (`#`)");
  const q = path.indexOf("?");
  const pathText = q === -1 ? path : path.slice(0, q);
  const queryText = q === -1 ? null : path.slice(q + 1);
  const parameters: string[] = [];
  const segments = pathText.split("/").map((s) => pieces(s, parameters));
  const query =
    queryText === null
      ? null
      : queryText.split("&").map((pair) => {
          const eq = pair.indexOf("=");
          const key = eq === -1 ? pair : pair.slice(0, eq);
          if (/[{}]/.test(key)) throw invalid("a query key in `path` cannot be a placeholder");
          return { key, hasValue: eq !== -1, value: pieces(eq === -1 ? "" : pair.slice(eq + 1), parameters) };
        });
  return {
    parameters,
    bind(params) {
      const segs = segments.map((ps) => {
        const s = join(ps, params);
        if (ps.some((p) => "name" in p) && (s === "" || s === "." || s === "..")) {
          throw invalid("a bound value would leave an empty, `.` or `..` path segment");
        }
        return s;
      });
      let out = segs.join("/");
      if (query !== null)
        out += `?${query.map((kv) => (kv.hasValue ? `${kv.key}=${join(kv.value, params)}` : kv.key)).join("&")}`;
      return out;
    },
  };
}

function statusError(where: string, status: number): SourceError {
  const msg = `${where}: http ${status}`;
  if (status === 401 || status === 403 || status === 407) return new SourceError("source_auth_failed", msg);
  if (status === 408 || status === 504) return new SourceError("source_timeout", msg);
  if (status === 429 || status >= 500) return new SourceError("source_server_error", msg);
  if (status >= 400) return new SourceError("source_invalid_query", msg);
  return new SourceError("source_server_error", msg);
}

function fetchError(where: string, err: unknown): SourceError {
  if (err instanceof SourceError) return err;
  const name = (err as { name?: unknown })?.name;
  if (name === "AbortError" || name === "TimeoutError")
    return new SourceError("source_timeout", `${where}: no answer within its timeout`);
  const errno = errnoOf(err);
  if (errno === "ETIMEDOUT") return new SourceError("source_timeout", `${where}: connection timed out`);
  if (errno !== undefined && UNREACHABLE_ERRNO.has(errno))
    return new SourceError("source_unreachable", `${where}: cannot connect (${errno})`);
  const code = String((err as { cause?: { code?: unknown } })?.cause?.code ?? "");
  if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT")
    return new SourceError("source_timeout", `${where}: timed out (${code})`);
  if (code.startsWith("HPE_"))
    return new SourceError("source_malformed_response", `${where}: the reply is not valid http (${code})`);
  if (code === "UND_ERR_SOCKET")
    return new SourceError("source_unreachable", `${where}: connection closed by the server`);
  return new SourceError("source_unreachable", `${where}: request failed`);
}

/** Read at most `max` bytes of the body; more is an error, not a truncation. */
async function readCapped(res: Response, max: number, where: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new SourceError("source_malformed_response", `${where}: the response is larger than max_bytes (${max})`);
  }
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw new SourceError("source_malformed_response", `${where}: the response is larger than max_bytes (${max})`);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new SourceError("source_malformed_response", `${where}: the response is not valid utf-8`);
  }
}

class HttpSource implements Source<HttpRequest> {
  readonly kind = "http";
  readonly timeoutMs: number;
  readonly #name: string;
  readonly #base: URL;
  readonly #prefix: string;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #rows: string | undefined;
  readonly #notFoundIsError: boolean;
  readonly #maxBytes: number;

  constructor(init: SourceInit<"http">) {
    const { name } = init;
    const config = sourceConfig("http", init);
    this.#name = name;
    // the schema checked it is an http(s) url; a query or fragment would not survive the path appended to it
    const url = new URL(config.base_url);
    if (url.search !== "" || url.hash !== "") {
      throw new TesseraError(
        "policy_invalid",
        "`base_url` must be an http(s) url without query or fragment",
        `sources.${name}.base_url`,
      );
    }
    this.#base = url;
    this.#prefix = url.href.replace(/\/+$/, "");
    this.timeoutMs = config.timeout_ms;
    this.#maxBytes = config.max_bytes;
    this.#headers = { accept: "application/json", ...config.headers };
    this.#rows = config.rows;
    this.#notFoundIsError = config.not_found === "error";
  }

  prepare(request: HttpRequest): PreparedRequest {
    const template = compileHttpPath(request.path);
    return { parameters: template.parameters, run: async (params, signal) => this.#run(template.bind(params), signal) };
  }

  /** The absolute url for a bound path, checked to keep the base's origin and path prefix. */
  #url(bound: string): URL {
    const url = new URL(this.#prefix + bound);
    if (url.origin !== this.#base.origin || !url.pathname.startsWith(this.#base.pathname.replace(/\/+$/, ""))) {
      throw invalid(`source \`${this.#name}\`: the bound path leaves \`base_url\``);
    }
    return url;
  }

  async #run(bound: string, signal: AbortSignal): Promise<SourceResult> {
    const where = `source \`${this.#name}\``;
    let url = this.#url(bound);
    try {
      for (let hop = 0; ; hop++) {
        const res = await fetch(url, { method: "GET", headers: this.#headers, redirect: "manual", signal });
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location !== null) {
          await res.body?.cancel().catch(() => undefined);
          if (hop >= MAX_REDIRECTS)
            throw new SourceError("source_server_error", `${where}: more than ${MAX_REDIRECTS} redirects`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new SourceError("source_malformed_response", `${where}: a redirect without a valid location`);
          }
          // headers carry credentials: never send them, nor trust an answer, from another origin
          if (next.origin !== this.#base.origin)
            throw new SourceError("source_server_error", `${where}: redirect to another origin refused`);
          url = next;
          continue;
        }
        if (res.status === 404 && !this.#notFoundIsError) {
          await res.body?.cancel().catch(() => undefined);
          return { rows: [] };
        }
        if (res.status < 200 || res.status > 299) {
          await res.body?.cancel().catch(() => undefined);
          throw statusError(where, res.status);
        }
        const type = res.headers.get("content-type") ?? "";
        if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type.trim())) {
          await res.body?.cancel().catch(() => undefined);
          throw new SourceError("source_malformed_response", `${where}: the response is not json`);
        }
        const text = await readCapped(res, this.#maxBytes, where);
        const body = parseJsonAnswer(text, where, "the response is not valid json");
        return { rows: rowsAt(body, this.#rows, where) };
      }
    } catch (err) {
      throw fetchError(where, err);
    }
  }

  async close(): Promise<void> {
    // fetch's global keep-alive pool owns the sockets; nothing to release per source
  }
}

/** Factory for `kind: http` sources. */
export async function createHttpSource(init: SourceInit<"http">): Promise<Source<HttpRequest>> {
  return new HttpSource(init);
}
