/**
 * `--notify` in the gateway: every hold this gateway queues is watched in the store until it is
 * decided, and each step goes to the receivers as a notification — off the call's path, so a
 * receiver that is down delays no call and changes no decision (adr/0122).
 * @module
 */
import { type DeliveryOptions, Notifier, notificationOf } from "../../review/notify.js";
import type { ReviewStore } from "../../review/types.js";
import { HoldWatcher } from "../../review/watch.js";
import type { Clock } from "./types.js";

/** The gateway's `notify` option: where and how to deliver, and how often to read the watched holds. */
export interface NotifyOptions extends Omit<DeliveryOptions, "onDiagnostic"> {
  /** How often the holds being watched are read for decisions (default 2 s). */
  readonly watchEveryMs?: number;
}

/** Holds this gateway made, watched and reported. */
export interface HoldNotifications {
  /** A hold was queued (its `held` review event was written): report it now and its decision later. */
  held(reviewId: string): void;
  /** Stop watching; give queued notifications a moment to go out. */
  close(): Promise<void>;
}

/** Watch and report the gateway's holds to `options.urls`. */
export function holdNotifications(
  reviews: ReviewStore,
  clock: Clock,
  options: NotifyOptions,
  diagnostic: (line: string) => void,
): HoldNotifications {
  const notifier = new Notifier({ ...options, onDiagnostic: diagnostic });
  let failing = false;
  const watcher = new HoldWatcher(
    reviews,
    clock,
    {
      held: (r) => notifier.send(notificationOf("held", r)),
      decided: (r) => notifier.send(notificationOf("decided", r)),
      failed: (id, err) => {
        // said once per outage, not once per turn
        if (failing) return;
        failing = true;
        diagnostic(
          `tessera gateway: cannot read ${id} for its notification, trying again: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    },
    options.watchEveryMs,
  );
  return {
    held: (id) => watcher.watch(id),
    async close() {
      await watcher.close();
      await notifier.close();
    },
  };
}
