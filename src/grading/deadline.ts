/**
 * A deadline around a live evaluator call: a response that does not arrive in time becomes
 * `{ result: null, timed_out: true }`, which `gradeAnswer` turns into `unavailable`
 * (`evaluator_timeout`) — never into a late `supported`.
 * @module
 */

/** The outcome of an evaluator call under a deadline; a call that rejects is no result, not a timeout. */
export interface DeadlineOutcome {
  /** The evaluator's raw response, or null. */
  readonly result: unknown;
  /** True when the deadline passed first. */
  readonly timed_out: boolean;
}

/** Run `call` with a deadline of `ms` milliseconds; the call's own errors become `result: null`. */
export async function withDeadline(call: () => Promise<unknown>, ms: number): Promise<DeadlineOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<DeadlineOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ result: null, timed_out: true }), ms);
  });
  const answered = (async (): Promise<DeadlineOutcome> => {
    try {
      return { result: await call(), timed_out: false };
    } catch {
      return { result: null, timed_out: false };
    }
  })();
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}
