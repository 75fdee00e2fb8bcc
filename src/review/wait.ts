/**
 * Waiting for a reviewer's decision on one held call. A decision is made by another process
 * (`tessera review`, the review page, another gateway), so the store is read again at a bounded
 * interval: the same code serves SQLite and Postgres, and needs no connection of its own
 * (adr/0121). Abort and timeout leave no timer or listener behind.
 * @module
 */
import { TesseraError } from "../platform/errors.js";
import type { ReviewRecord, WaitOptions } from "./types.js";

export type { WaitOptions } from "./types.js";

/** How often the store is read while waiting unless told otherwise: every 500 ms. */
export const DEFAULT_POLL_INTERVAL_MS = 500;
/** The shortest and longest poll interval accepted, so a wait neither hammers the store nor dozes. */
export const POLL_INTERVAL_BOUNDS_MS = { min: 10, max: 5_000 } as const;

/** The read a wait needs: a review by id, as `ReviewStore.get` gives it. */
export type ReadReview = (id: string, now: number) => Promise<ReviewRecord | null>;

/** The reason an aborted signal carries, as an Error. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("the wait was aborted", "AbortError");
}

/** `ms` of quiet, cut short (rejecting) when `signal` aborts; nothing is left scheduled either way. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `work`, or a rejection as soon as `signal` aborts (the store read itself finishes on its own). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** The poll interval to use: the given one within `POLL_INTERVAL_BOUNDS_MS`, or the default. */
function intervalOf(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_POLL_INTERVAL_MS;
  if (!Number.isFinite(ms)) return DEFAULT_POLL_INTERVAL_MS;
  return Math.min(POLL_INTERVAL_BOUNDS_MS.max, Math.max(POLL_INTERVAL_BOUNDS_MS.min, Math.round(ms)));
}

/**
 * Wait until review `id` is no longer pending — approved, denied, consumed, or expired unreviewed —
 * and resolve to it; after `timeoutMs`, resolve to it still pending. An unknown id is
 * `review_not_found`; a failed store read rejects with its error; an abort rejects with the
 * signal's reason, at once.
 */
export async function pollDecision(read: ReadReview, id: string, options: WaitOptions): Promise<ReviewRecord> {
  const { signal, timeoutMs } = options;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)
    throw new TesseraError(
      "invalid_input",
      `waitForDecision: timeoutMs must be a positive whole number of milliseconds, got \`${timeoutMs}\``,
    );
  const interval = intervalOf(options.intervalMs);
  const clock = options.clock ?? Date.now;
  signal?.throwIfAborted();
  // the timeout runs on the process's monotonic time, never on the injected clock (which may stand still)
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const review = await abortable(read(id, clock()), signal);
    if (review === null) throw new TesseraError("review_not_found", `no review \`${id}\``);
    if (review.state !== "pending") return review;
    const left = deadline - performance.now();
    if (left <= 0) return review;
    await pause(Math.min(interval, Math.ceil(left)), signal);
  }
}

/** `tessera-trust/review`: wait for a decision on `reviewId` in `store` (see `ReviewStore.waitForDecision`). */
export function waitForDecision(
  store: { waitForDecision(id: string, options: WaitOptions): Promise<ReviewRecord> },
  reviewId: string,
  options: WaitOptions,
): Promise<ReviewRecord> {
  return store.waitForDecision(reviewId, options);
}
