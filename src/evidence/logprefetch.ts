/**
 * Log scans computed ahead on a worker thread (scanworker.ts), taken synchronously by the refresh
 * in its own file order. A scan is a pure function of the file's bytes, so the store is the same
 * as when the main thread scans each log itself; a log not prefetched is scanned in place.
 * @module
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { ScanJobs, ScanResult } from "./scanworker.js";

/**
 * Logs at least `minBytes` large in total are scanned partly on a worker thread, which takes about
 * `share` of their bytes (this thread also reads every other file); tests lower `minBytes` to 0.
 * The worker stays at most `window` results and `windowLines` kept lines ahead of what this thread
 * has taken: the lines are what a waiting result holds, and `windowLines` is what 512 results of a
 * full 2,000 lines held under the earlier bound of 512 results; the result count is larger so the
 * worker does not stop while this thread reads the other files before it takes the first log.
 */
export const prefetchTuning = { minBytes: 16 * 2 ** 20, share: 0.6, window: 4096, windowLines: 512 * 2000 };

/** How many refreshes used a scan worker in this process (tests check the worker path ran). */
export const prefetchStats = { workers: 0 };

const WORKER = new URL("./scanworker.js", import.meta.url);

/** Whether the worker script is there (it is in the built package; not when run from TypeScript sources). */
export function canPrefetch(): boolean {
  return existsSync(fileURLToPath(WORKER));
}

/** Scans of a list of logs, computed ahead in order on a second thread. */
export class LogPrefetch {
  private readonly worker: Worker;
  private readonly port: MessageChannel["port1"];
  private readonly counters: Int32Array;
  private readonly pending: Set<string>;
  private received = 0;

  /** `sizes`: each file's size from a stat just before. */
  constructor(paths: readonly string[], sizes: readonly number[], keep: number) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.counters = new Int32Array(new SharedArrayBuffer(16));
    this.pending = new Set(paths);
    const data: ScanJobs = {
      paths,
      sizes,
      keep,
      window: prefetchTuning.window,
      windowLines: prefetchTuning.windowLines,
      port: port2,
      counters: this.counters,
    };
    // no inherited flags: `node --input-type=module -e …` would make the worker read its file as that input
    this.worker = new Worker(WORKER, { workerData: data, transferList: [port2], execArgv: [] });
    this.worker.unref();
    prefetchStats.workers++;
  }

  /** The scan of `path`, waiting for it; undefined when `path` was not (or is no longer) prefetched. */
  take(path: string): ScanResult | undefined {
    if (!this.pending.has(path)) return undefined;
    for (;;) {
      const got = receiveMessageOnPort(this.port);
      if (got === undefined) {
        // INVARIANT: the worker posts before it counts, so a count past `received` means a message is on its way
        if (Atomics.load(this.counters, 0) > this.received) continue;
        // a worker that stopped early or never started: scan the rest in place (same result, slower)
        if (Atomics.load(this.counters, 2) === 2) return this.giveUp();
        const waited = Atomics.wait(this.counters, 0, this.received, 5000);
        if (waited === "timed-out" && Atomics.load(this.counters, 2) === 0) return this.giveUp();
        continue;
      }
      this.received++;
      const r = got.message as ScanResult;
      // the lines first: the worker wakes on the result count and then reads both
      if (r.ok) Atomics.add(this.counters, 3, r.lines.length);
      Atomics.add(this.counters, 1, 1);
      Atomics.notify(this.counters, 1);
      this.pending.delete(r.path);
      if (r.path === path) return r;
    }
  }

  private giveUp(): undefined {
    this.pending.clear();
    this.close();
    return undefined;
  }

  /** Stop the worker (also when the refresh failed half-way). */
  close(): void {
    this.port.close();
    void this.worker.terminate();
  }
}
