/**
 * Watching the holds one process made until each is decided: reviewers decide in another process
 * (`tessera review`, the review page), so the store is read for the watched ids at a bounded
 * interval, and each hold is reported once when seen held and once when seen decided (or expired
 * unreviewed). Nothing is scheduled while nothing is watched, and the timer never keeps the process
 * alive (adr/0122).
 * @module
 */
import type { ReviewRecord, ReviewStore } from "./types.js";

/** The most holds one watcher follows; a hold past that gets its held report but no decided one. */
export const MAX_WATCHED_HOLDS = 1_000;
/** How often the watched holds are read by default: every 2 s. */
export const DEFAULT_WATCH_EVERY_MS = 2_000;

/** What a watcher reports. */
export interface WatchReports {
  /** A watched hold, as first read (once per hold). */
  readonly held: (review: ReviewRecord) => void;
  /** A watched hold no longer pending: approved, denied, consumed or expired (once per hold). */
  readonly decided: (review: ReviewRecord) => void;
  /** A read failed; the hold stays watched and is read again at the next turn. */
  readonly failed?: (id: string, err: unknown) => void;
}

/** Follows the holds it is given until each is decided. */
export class HoldWatcher {
  /** Watched ids, and whether their held report went out. */
  private readonly watched = new Map<string, boolean>();
  private timer: NodeJS.Timeout | null = null;
  private turn: Promise<void> | null = null;
  private closed = false;
  private givenDuringTurn = false;

  constructor(
    private readonly reviews: ReviewStore,
    private readonly clock: () => number,
    private readonly reports: WatchReports,
    private readonly everyMs = DEFAULT_WATCH_EVERY_MS,
    private readonly limit = MAX_WATCHED_HOLDS,
  ) {}

  /** Follow hold `id`; it is read at once (for its held report) and then at every turn. */
  watch(id: string): void {
    if (this.closed || this.watched.has(id)) return;
    if (this.watched.size >= this.limit) {
      // still say that it waits; its decision will be in the audit log only
      void this.reviews
        .get(id, this.clock())
        .then((r) => r !== null && this.reports.held(r))
        .catch((err: unknown) => this.reports.failed?.(id, err));
      return;
    }
    this.watched.set(id, false);
    if (this.turn !== null) this.givenDuringTurn = true;
    this.schedule(0);
  }

  /** How many holds are followed now. */
  get size(): number {
    return this.watched.size;
  }

  /** Stop following every hold; a read in progress finishes without reporting. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.watched.clear();
    await this.turn;
  }

  private schedule(ms: number): void {
    if (this.closed || this.watched.size === 0) return;
    if (this.turn !== null) return; // the turn in progress schedules the next one
    if (this.timer !== null) {
      if (ms > 0) return;
      clearTimeout(this.timer); // a new hold is read now, not at the next turn
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.turn = this.read().finally(() => {
        this.turn = null;
        // a hold given during this turn is read at once, the rest (and failed reads) at the next turn
        const soon = this.givenDuringTurn;
        this.givenDuringTurn = false;
        this.schedule(soon ? 0 : this.everyMs);
      });
    }, ms);
    this.timer.unref();
  }

  /** One turn: read every watched hold and report what changed. */
  private async read(): Promise<void> {
    for (const [id, heldReported] of [...this.watched]) {
      let review: ReviewRecord | null;
      try {
        review = await this.reviews.get(id, this.clock());
      } catch (err) {
        if (!this.closed) this.reports.failed?.(id, err);
        continue;
      }
      if (this.closed) return;
      if (review === null) {
        this.watched.delete(id);
        continue;
      }
      if (!heldReported) {
        this.reports.held(review);
        this.watched.set(id, true);
      }
      if (review.state !== "pending") {
        this.reports.decided(review);
        this.watched.delete(id);
      }
    }
  }
}
