/**
 * One timer for every pending Source request. Arming a Node timer per request costs more than a
 * SQLite lookup, so requests join a set and a single timer fires for the earliest deadline.
 * @module
 */

interface Entry {
  readonly at: number;
  readonly expire: () => void;
}

/** A deadline set with a single re-armed timer; it keeps the process alive only while a request is pending. */
export class Deadlines {
  private readonly entries = new Set<Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  /** Call `expire` once `ms` milliseconds from now unless the entry is removed first. */
  add(ms: number, expire: () => void): Entry {
    const entry: Entry = { at: Date.now() + ms, expire };
    this.entries.add(entry);
    if (entry.at < this.timerAt) this.arm(entry.at);
    else if (this.entries.size === 1) this.timer?.ref();
    return entry;
  }

  /** Forget an entry whose request settled. */
  remove(entry: Entry): void {
    this.entries.delete(entry);
    if (this.entries.size === 0) this.timer?.unref(); // an idle timer never holds the process open
  }

  /** Drop the timer (on close). */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.entries.clear();
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const e of [...this.entries]) {
      if (e.at <= now + 1) {
        this.entries.delete(e);
        e.expire();
      } else if (e.at < next) {
        next = e.at;
      }
    }
    if (next !== Infinity) this.arm(next);
  }
}
