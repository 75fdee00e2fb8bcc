/**
 * The Sources a gate has opened, and every request to them bounded by its source's timeout. A
 * source opens on first use and again after a failed open; opening is bounded too, so an MCP server
 * that never answers its handshake cannot hold a decision.
 * @module
 */
import { getEventListeners } from "node:events";
import type { Scalar } from "../../core/index.js";
import { TesseraError } from "../../platform/errors.js";
import { Deadlines } from "../deadlines.js";
import type { SourceConfig } from "../policy.js";
import { type PreparedRequest, type Source, SourceError, type SourceResult } from "../source.js";

/** Opens the Source a policy names; the engine calls it once per source, lazily, and again after a failed open. */
export type OpenSource = (name: string, config: SourceConfig) => Promise<Source>;

/** Unused signals kept per pool for reuse: enough for the requests of a burst of concurrent checks. */
const MAX_SPARE_CONTROLLERS = 64;

/** The opened Sources of one gate and the deadlines of their requests. */
export class SourcePool {
  private readonly opened = new Map<string, Promise<Source>>();
  /** Opened sources, reachable without an await. */
  private readonly ready = new Map<string, Source>();
  private readonly deadlines = new Deadlines();
  // Creating an AbortSignal costs about as much as the rest of a check (adr/0041): a signal that did
  // not abort and that no listener holds any more goes back here for a later request.
  private readonly spareControllers: AbortController[] = [];
  private closed = false;

  constructor(
    private readonly configs: Readonly<Record<string, SourceConfig>>,
    private readonly openSource: OpenSource,
  ) {}

  /** The source `name` if it is open, without an await. */
  openedSource(name: string): Source | undefined {
    return this.ready.get(name);
  }

  /** Open the source `name` (or wait for its open); rejects with `source_timeout` past its timeout. */
  open(name: string): Promise<Source> {
    return this.openBounded(name);
  }

  private configOf(name: string): SourceConfig | undefined {
    return Object.hasOwn(this.configs, name) ? this.configs[name] : undefined;
  }

  private start(name: string, config: SourceConfig): Promise<Source> {
    let p = this.opened.get(name);
    if (p === undefined) {
      p = this.openSource(name, config);
      this.opened.set(name, p);
      p.then(
        (s) => {
          if (!this.closed) this.ready.set(name, s);
        },
        () => this.opened.delete(name), // a failed open is retried by the next request
      );
    }
    return p;
  }

  // the open itself keeps going past the deadline, and later requests reuse it
  private openBounded(name: string): Promise<Source> {
    const config = this.configOf(name);
    if (config === undefined) {
      return Promise.reject(new TesseraError("source_undefined", `undefined source \`${name}\``));
    }
    const p = this.start(name, config);
    const ms = config.timeout_ms;
    return new Promise<Source>((resolve, reject) => {
      const entry = this.deadlines.add(ms, () =>
        reject(new SourceError("source_timeout", `source \`${name}\` did not open within ${ms} ms`)),
      );
      p.then(
        (s) => {
          this.deadlines.remove(entry);
          resolve(s);
        },
        (err: unknown) => {
          this.deadlines.remove(entry);
          reject(err);
        },
      );
    });
  }

  /** Run `request` with `params`, rejecting with `source_timeout` after `ms` and aborting its signal. */
  run(request: PreparedRequest, params: Record<string, Scalar>, ms: number): Promise<SourceResult> {
    const controller = this.spareControllers.pop() ?? new AbortController();
    return new Promise<SourceResult>((resolve, reject) => {
      const entry = this.deadlines.add(ms, () => {
        controller.abort();
        reject(new SourceError("source_timeout", `no answer within ${ms} ms`));
      });
      const settled = (): void => {
        this.deadlines.remove(entry);
        const signal = controller.signal;
        if (
          !signal.aborted &&
          this.spareControllers.length < MAX_SPARE_CONTROLLERS &&
          getEventListeners(signal, "abort").length === 0
        ) {
          this.spareControllers.push(controller);
        }
      };
      let p: Promise<SourceResult>;
      try {
        p = request.run(params, controller.signal);
      } catch (err) {
        settled();
        reject(err);
        return;
      }
      p.then(
        (r) => {
          settled();
          resolve(r);
        },
        (err: unknown) => {
          settled();
          reject(err);
        },
      );
    });
  }

  /** Close every opened source. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.deadlines.clear();
    const all = [...this.opened.values()];
    this.opened.clear();
    this.ready.clear();
    await Promise.all(
      all.map((p) =>
        p.then(
          (s) => s.close(),
          () => undefined,
        ),
      ),
    );
  }
}
