/**
 * Holds that wait (`tessera gateway --hold-wait`): a held tools/call stays open while a reviewer
 * decides, with MCP progress notifications when the client asked for them. A decision in time makes
 * the gateway decide the call again, exactly as a repeated call would be (so an approval is consumed
 * once, a denial is refused with its reason); a wait that ends first, a cancelled call and a
 * gateway that is stopping answer as held today, and nothing is forwarded later (adr/0121).
 * @module
 */
import { TesseraError } from "../../platform/errors.js";
import { formatDuration } from "../../review/duration.js";
import type { ReviewStore } from "../../review/types.js";
import type { HandlerExtra } from "./forward.js";
import type { Clock } from "./types.js";

/** The longest `--hold-wait`: 10 minutes, past which an agent's client has long given up. */
export const MAX_HOLD_WAIT_MS = 10 * 60_000;
/** How many held calls may wait at once by default; the next one is answered as held at once. */
export const DEFAULT_MAX_WAITING_CALLS = 32;
/** How often a waiting call reads the store by default. */
export const DEFAULT_HOLD_WAIT_POLL_MS = 500;
/** How often a waiting call reports progress by default (its first report is at once). */
export const DEFAULT_PROGRESS_EVERY_MS = 5_000;

/** How held calls wait (`createGateway({holdWait})`). */
export interface HoldWaitOptions {
  /** How long a held call waits for a decision, at most `MAX_HOLD_WAIT_MS`. */
  readonly ms: number;
  /** How many calls may wait at once (default 32). */
  readonly maxWaiting?: number;
  /** How often the store is read (default 500 ms). */
  readonly pollMs?: number;
  /** How often progress is reported to a client that sent a progress token (default 5 s). */
  readonly progressEveryMs?: number;
}

/** A positive whole number of milliseconds no longer than `MAX_HOLD_WAIT_MS`, or a usage error. */
export function checkHoldWait(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms <= 0 || ms > MAX_HOLD_WAIT_MS)
    throw new TesseraError(
      "invalid_input",
      `holdWait.ms must be a positive whole number of milliseconds of at most ${MAX_HOLD_WAIT_MS} (${formatDuration(MAX_HOLD_WAIT_MS)}), got \`${ms}\``,
    );
  return ms;
}

/** A positive whole number, or a usage error naming `what`. */
function positive(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new TesseraError("invalid_input", `${what} must be a positive whole number, got \`${n}\``);
  return n;
}

/** A signal that aborts when either does; `release` detaches it, so nothing outlives the wait. */
function linked(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(a.aborted ? a.reason : b.reason);
  if (a.aborted || b.aborted) abort();
  a.addEventListener("abort", abort, { once: true });
  b.addEventListener("abort", abort, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      a.removeEventListener("abort", abort);
      b.removeEventListener("abort", abort);
    },
  };
}

/** The held calls of one gateway that are waiting for a decision. */
export class HoldWaits {
  private waiting = 0;
  private readonly stopping = new AbortController();
  private readonly maxWaiting: number;
  private readonly pollMs: number;
  private readonly progressEveryMs: number;
  readonly ms: number;

  constructor(
    options: HoldWaitOptions,
    private readonly reviews: ReviewStore,
    private readonly clock: Clock,
    private readonly diagnostic: (line: string) => void,
  ) {
    this.ms = checkHoldWait(options.ms);
    this.maxWaiting = positive(options.maxWaiting ?? DEFAULT_MAX_WAITING_CALLS, "holdWait.maxWaiting");
    this.pollMs = positive(options.pollMs ?? DEFAULT_HOLD_WAIT_POLL_MS, "holdWait.pollMs");
    this.progressEveryMs = positive(options.progressEveryMs ?? DEFAULT_PROGRESS_EVERY_MS, "holdWait.progressEveryMs");
  }

  /** How many calls are waiting now. */
  get count(): number {
    return this.waiting;
  }

  /** End every wait now (the gateway is stopping): each is answered as held, and no new one starts. */
  stop(): void {
    this.stopping.abort(new Error("the gateway is stopping"));
  }

  /**
   * Wait for a decision on review `reviewId` of a held call. True when one came in time and the
   * caller should decide the call again; false when the call is to be answered as held (the wait
   * ended, the client cancelled, the gateway is stopping, too many calls wait, or the store failed).
   */
  async decided(reviewId: string, extra: HandlerExtra): Promise<boolean> {
    if (this.stopping.signal.aborted || extra.signal.aborted) return false;
    if (this.waiting >= this.maxWaiting) {
      this.diagnostic(
        `tessera gateway: ${reviewId}: ${this.maxWaiting} held calls are waiting already; answered as held`,
      );
      return false;
    }
    this.waiting += 1;
    const { signal, release } = linked(extra.signal, this.stopping.signal);
    const token = extra._meta?.progressToken as string | number | undefined;
    let reported = 0;
    const report = async (message: string) => {
      if (token === undefined) return;
      reported += 1;
      await extra
        .sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: reported, message },
        } as never)
        .catch(() => undefined);
    };
    const started = performance.now();
    try {
      await report(
        `held for human review as ${reviewId}: waiting up to ${formatDuration(this.ms)} for \`tessera review approve ${reviewId}\` or a denial`,
      );
      for (;;) {
        const left = Math.ceil(this.ms - (performance.now() - started));
        if (left <= 0) return false;
        const review = await this.reviews.waitForDecision(reviewId, {
          signal,
          timeoutMs: Math.min(this.progressEveryMs, left),
          intervalMs: this.pollMs,
          clock: this.clock,
        });
        // a cancel that raced the decision wins: an approval stays for a later identical call
        if (signal.aborted) return false;
        if (review.state !== "pending") return true;
        const rest = Math.max(0, Math.round((this.ms - (performance.now() - started)) / 1000));
        await report(`still held as ${reviewId}: waiting for a reviewer (${rest}s left)`);
      }
    } catch (err) {
      if (!signal.aborted)
        this.diagnostic(
          `tessera gateway: ${reviewId}: waiting for a decision failed, answered as held: ${err instanceof Error ? err.message : String(err)}`,
        );
      return false;
    } finally {
      release();
      this.waiting -= 1;
    }
  }
}
