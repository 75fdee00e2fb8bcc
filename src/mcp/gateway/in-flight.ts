/**
 * Requests in flight (tools/call and everything passed through), so a shutdown answers them first.
 * @module
 */

/** Counts tracked handlers while they run; `drain` resolves once none is running. */
export class InFlight {
  private running = 0;
  private readonly idle: (() => void)[] = [];

  /** `fn`, counted while it runs. */
  track<A extends unknown[], R>(fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
    return async (...a: A): Promise<R> => {
      this.running += 1;
      try {
        return await fn(...a);
      } finally {
        this.running -= 1;
        if (this.running === 0) for (const wake of this.idle.splice(0)) setImmediate(wake); // after the response is sent
      }
    };
  }

  /** Resolves when nothing tracked is running (requests already read are let start first). */
  async drain(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }
}
