/**
 * Readiness: whether every required Source answers. A Source is required when a check of a listed
 * tool names it (adr/0124); each is probed on start and every interval with a request that reads
 * nothing — `SELECT 1` for SQL, a GET of `/` for HTTP, the handshake for MCP — through its own
 * connection, apart from the gate's. A probe that cannot connect, times out, or (SQL) is refused
 * its credentials marks the Source down until a later probe answers.
 * @module
 */
import type { OpenSource } from "../checks/engine.js";
import type { Policy } from "../checks/policy.js";
import type { Source } from "../checks/source.js";
import { TesseraError } from "../platform/errors.js";

/** How often required Sources are probed by default, in milliseconds. */
export const DEFAULT_PROBE_INTERVAL_MS = 5_000;

/** One required Source at its last probe. */
export interface SourceHealth {
  readonly name: string;
  readonly kind: string;
  readonly ready: boolean;
  /** The probe's failure code, or null when it answered. */
  readonly code: string | null;
}

/** The readiness of every required Source. */
export interface Readiness {
  /** Probe every required Source now. */
  probe(): Promise<void>;
  /** The last probes: ready when every required Source answered (and at least one probe ran). */
  report(): { readonly ready: boolean; readonly sources: readonly SourceHealth[] };
  /** Stop probing and close the probes' connections. */
  close(): Promise<void>;
}

/** The Sources a check of a listed tool names, sorted. */
export function requiredSources(policy: Policy): string[] {
  const names = new Set<string>();
  for (const tool of Object.values(policy.tools))
    for (const arg of Object.values(tool.arguments)) for (const c of arg.ground.checks) names.add(c.source);
  return [...names].sort();
}

const SQL_KINDS = new Set(["sqlite", "postgres", "mysql"]);
const DOWN = new Set(["source_unreachable", "source_timeout"]);

async function probeOnce(source: Source, kind: string): Promise<string | null> {
  const request = SQL_KINDS.has(kind) ? { query: "SELECT 1 AS ok" } : kind === "http" ? { path: "/" } : null;
  if (request === null) return null; // opened: the handshake answered
  const prepared = source.prepare(request);
  const signal = AbortSignal.timeout(source.timeoutMs);
  try {
    if (prepared.runSync !== undefined) prepared.runSync({});
    else await prepared.run({}, signal);
    return null;
  } catch (err) {
    const code = err instanceof TesseraError ? err.code : "source_unreachable";
    if (DOWN.has(code) || (SQL_KINDS.has(kind) && code === "source_auth_failed")) return code;
    return null; // it answered, with something a probe does not ask for
  }
}

/** Readiness of `policy`'s required Sources, opened with `open`; probes every `intervalMs` once started. */
export function createReadiness(policy: Policy, open: OpenSource, intervalMs: number): Readiness {
  const names = requiredSources(policy);
  const opened = new Map<string, Source>();
  const health = new Map<string, SourceHealth>();
  let probed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;

  async function probeSource(name: string): Promise<void> {
    const config = policy.sources[name]!;
    let code: string | null;
    try {
      let source = opened.get(name);
      if (source === undefined) {
        const opening = open(name, config);
        try {
          source = await withTimeout(opening, config.timeout_ms, name);
        } catch (err) {
          // an open that finishes after its deadline is closed, not leaked
          opening.then((late) => late.close()).catch(() => undefined);
          throw err;
        }
        opened.set(name, source);
      }
      code = await probeOnce(source, config.kind);
    } catch (err) {
      code = err instanceof TesseraError ? err.code : "source_unreachable";
      if (!DOWN.has(code) && code !== "source_auth_failed") code = "source_unreachable";
    }
    if (code !== null) {
      // reopen next time: an MCP server that died, a pool whose server restarted
      const stale = opened.get(name);
      opened.delete(name);
      await stale?.close().catch(() => undefined);
    }
    health.set(name, { name, kind: config.kind, ready: code === null, code });
  }

  const readiness: Readiness = {
    probe() {
      running ??= Promise.all(names.map(probeSource)).then(() => {
        probed = true;
        running = undefined;
        if (!closed && timer === undefined && intervalMs > 0) {
          timer = setInterval(() => void readiness.probe(), intervalMs);
          timer.unref();
        }
      });
      return running;
    },
    report() {
      const sources = names.map(
        (n) => health.get(n) ?? { name: n, kind: policy.sources[n]!.kind, ready: false, code: "not_probed" },
      );
      return { ready: probed && sources.every((s) => s.ready), sources };
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
      await Promise.all([...opened.values()].map((s) => s.close().catch(() => undefined)));
      opened.clear();
    },
  };
  return readiness;
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_r, reject) => {
      t = setTimeout(
        () => reject(new TesseraError("source_timeout", `source \`${name}\` did not open within ${ms} ms`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(t));
}
