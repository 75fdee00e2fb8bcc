/**
 * Scanning logs on a second thread while the main thread writes the store (logprefetch.ts): the
 * worker runs `scanLog` over its list of files in order and posts each result, staying at most
 * `window` results and `windowLines` kept lines ahead of what the main thread has taken.
 * @module
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { scanLog, type ScanLine } from "./logscan.js";
import type { LineClass, Signature } from "./signatures.js";
import { FileProblem, type ReadInfo } from "./text.js";

/** What the worker is started with. */
export interface ScanJobs {
  readonly paths: readonly string[];
  /** Each file's size from the refresh's stat (spares the worker an fstat per file). */
  readonly sizes: readonly number[];
  /** Classified lines kept per log (the first ones, as the store keeps them). */
  readonly keep: number;
  readonly window: number;
  readonly windowLines: number;
  readonly port: MessagePort;
  /** [0] results posted, [1] results taken by the main thread, [2] 1 once running and 2 once exiting, [3] lines of the results taken. */
  readonly counters: Int32Array;
}

/** One log's scan, or why it could not be read. */
export type ScanResult =
  | {
      readonly path: string;
      readonly ok: true;
      readonly info: ReadInfo;
      readonly signature: Signature<ScanLine> | undefined;
      readonly lines: [ScanLine, LineClass][];
    }
  | { readonly path: string; readonly ok: false; readonly code: string; readonly message: string }
  | { readonly path: string; readonly ok: false; readonly code: null; readonly message: string };

function scanOne(path: string, size: number, keep: number): ScanResult {
  try {
    const lines: [ScanLine, LineClass][] = [];
    const { info, signature } = scanLog(
      path,
      (l, cls) => {
        if (lines.length < keep) lines.push([l, cls]);
      },
      size,
    );
    return { path, ok: true, info, signature, lines };
  } catch (err) {
    if (err instanceof FileProblem) return { path, ok: false, code: err.code, message: err.message };
    return { path, ok: false, code: null, message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

const jobs = workerData as ScanJobs | undefined;
if (jobs !== undefined) {
  const { paths, sizes, keep, window, windowLines, port, counters } = jobs;
  let linesPosted = 0;
  Atomics.store(counters, 2, 1);
  process.on("exit", () => {
    Atomics.store(counters, 2, 2);
    Atomics.notify(counters, 0);
  });
  for (let i = 0; i < paths.length; i++) {
    for (;;) {
      const taken = Atomics.load(counters, 1);
      if (i - taken < window && linesPosted - Atomics.load(counters, 3) < windowLines) break;
      Atomics.wait(counters, 1, taken);
    }
    const r = scanOne(paths[i]!, sizes[i]!, keep);
    if (r.ok) linesPosted += r.lines.length;
    port.postMessage(r);
    Atomics.add(counters, 0, 1);
    Atomics.notify(counters, 0);
  }
}
