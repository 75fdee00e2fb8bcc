/**
 * Bounds on the work the service takes on: how many requests decide at once (over that, 503 with
 * `Retry-After`), and how long one may take (its deadline).
 * @module
 */
import { HttpError } from "./errors.js";

/** Requests deciding at once by default. */
export const DEFAULT_MAX_CONCURRENT = 64;
/** A request's deadline by default, in milliseconds. */
export const DEFAULT_DEADLINE_MS = 10_000;

/** Counts requests admitted; refuses one over the limit. */
export class Admission {
  private running = 0;
  private readonly idle: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Requests admitted and not yet finished. */
  get inFlight(): number {
    return this.running;
  }

  /** Run `fn` as one admitted request, or throw `overloaded` when `limit` are running. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit)
      throw new HttpError("overloaded", `(service): ${this.limit} requests are being decided; retry shortly`, {
        "retry-after": "1",
      });
    this.running += 1;
    try {
      return await fn();
    } finally {
      this.running -= 1;
      if (this.running === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Resolves once no admitted request is running. */
  drain(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}

/**
 * `work`, or `deadline_exceeded` once `ms` pass. The work goes on past the deadline (a decision
 * that started is still audited); only its answer is no longer awaited.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onLate?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onLate?.();
      reject(
        new HttpError("deadline_exceeded", `(service): the request did not finish within ${ms} ms`, {
          "retry-after": "1",
        }),
      );
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
