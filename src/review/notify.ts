/**
 * Telling people that a call waits for them (`tessera gateway --notify <url>`): one event when a
 * call is held and one when it is decided, POSTed as JSON (specs/gateway.md, "Notifications") or
 * as a Slack-compatible `{"text": …}` body. Delivery runs beside the calls, never in their path:
 * each receiver has its own queue, a failed POST is retried a bounded number of times with backoff,
 * and a receiver that is down delays no call and changes no decision (adr/0122).
 * @module
 */
import { TesseraError } from "../platform/errors.js";
import type { ReviewRecord } from "./types.js";

/** The schema name every JSON notification carries first. */
export const NOTIFICATION_SCHEMA = "tessera.notification.v1";

/** What a notification is about: a call held, or a held call decided (or expired unreviewed). */
export type NotificationType = "held" | "decided";

/** A notification as POSTed with `--notify-format json`: ids, codes and times, never argument values. */
export interface Notification {
  readonly schema: typeof NOTIFICATION_SCHEMA;
  readonly type: NotificationType;
  readonly review_id: string;
  readonly tool: string;
  /** `pending` for `held`; `approved`, `denied` or `expired` (nobody decided in time) for `decided`. */
  readonly state: "pending" | "approved" | "denied" | "expired";
  readonly kinds: readonly string[];
  readonly codes: readonly string[];
  readonly reviewer: string | null;
  /** The reviewer's reason for a denial (the text the agent is shown), else null. */
  readonly reason: string | null;
  readonly held_at: string;
  readonly decided_at: string | null;
  /** `held`: until when the call waits for a reviewer; `decided` approved: until when the approval is usable. */
  readonly expires_at: string | null;
}

/** How notifications are written: JSON events, or Slack incoming-webhook text. */
export type NotifyFormat = "json" | "slack";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * What a decided review was decided as: an approval stays `approved` once used (`consumed`) or
 * lapsed unused (`expired` with a decision time); a pending review past its deadline is `expired`.
 */
function decidedState(r: ReviewRecord): Notification["state"] {
  if (r.state === "denied") return "denied";
  if (r.state === "approved" || r.state === "consumed") return "approved";
  if (r.state === "expired") return r.decided_at === null ? "expired" : "approved";
  return "pending";
}

/** The notification of `type` about review `r`, keys in the order of specs/gateway.md. */
export function notificationOf(type: NotificationType, r: ReviewRecord): Notification {
  const state = type === "held" ? "pending" : decidedState(r);
  return {
    schema: NOTIFICATION_SCHEMA,
    type,
    review_id: r.id,
    tool: r.tool,
    state,
    kinds: [...new Set(r.reasons.map((x) => x.kind))],
    codes: [...new Set(r.reasons.flatMap((x) => x.codes))],
    reviewer: type === "held" ? null : r.decided_by,
    reason: state === "denied" ? r.decision_reason : null,
    held_at: new Date(r.created_at).toISOString(),
    decided_at: type === "held" ? null : iso(r.decided_at),
    expires_at: type === "held" || state === "approved" ? iso(r.expires_at) : null,
  };
}

/** Slack's three control characters in message text, escaped as its docs require. */
function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The one line a Slack-compatible receiver shows for `n`. */
export function slackText(n: Notification): string {
  const call = `\`${n.tool}\` call ${n.review_id}`;
  const why = n.codes.length > 0 ? ` (${[...n.kinds, ...n.codes].join(", ")})` : "";
  const line =
    n.type === "held"
      ? `tessera: ${call} is held for review${why}: \`tessera review approve ${n.review_id}\` or \`tessera review deny ${n.review_id}\` before ${n.expires_at}`
      : n.state === "expired"
        ? `tessera: ${call} expired: nobody reviewed it in time`
        : `tessera: ${call} was ${n.state} by ${n.reviewer ?? "a reviewer"}${n.reason !== null ? `: ${n.reason}` : ""}`;
  return slackEscape(line);
}

/** The body POSTed for `n` in `format`. */
export function notificationBody(n: Notification, format: NotifyFormat): string {
  return JSON.stringify(format === "slack" ? { text: slackText(n) } : n);
}

/** The most receivers one gateway notifies. */
export const MAX_NOTIFY_URLS = 8;

/**
 * A receiver URL as given: http or https, with a host and without credentials (fetch refuses them,
 * and a URL on the command line is no place for a password). The URL itself is never echoed: a
 * webhook's path is often its secret.
 */
export function checkNotifyUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TesseraError("usage_error", "`--notify` takes an http:// or https:// URL; this one does not parse");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TesseraError("usage_error", `\`--notify\` takes an http:// or https:// URL, not ${url.protocol}`);
  if (url.username !== "" || url.password !== "")
    throw new TesseraError("usage_error", "`--notify` URLs must not carry credentials (user:password@)");
  return url;
}

/** How deliveries are made. */
export interface DeliveryOptions {
  readonly urls: readonly string[];
  readonly format?: NotifyFormat;
  /** Tries per notification and receiver, the first included (default 4). */
  readonly attempts?: number;
  /** The pause before try `n + 1` after try `n` failed (default 1 s, 2 s, 4 s, …). */
  readonly backoffMs?: (n: number) => number;
  /** How long one try may take (default 5 s). */
  readonly timeoutMs?: number;
  /** How many notifications may wait per receiver; more are dropped with a diagnostic (default 256). */
  readonly maxQueued?: number;
  /** How long `close` lets queued notifications go out before it stops them (default 2 s). */
  readonly graceMs?: number;
  /** Where failures are reported (the gateway's stderr). */
  readonly onDiagnostic?: (line: string) => void;
}

/** Statuses worth another try: the receiver is busy or failing, not refusing the request. */
const RETRIED_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

/** One receiver: its queue, worked through in order, one POST at a time. */
class Receiver {
  private readonly queue: string[] = [];
  private running: Promise<void> | null = null;
  constructor(
    private readonly url: string,
    private readonly shown: string,
    private readonly d: Required<Omit<DeliveryOptions, "urls" | "format">>,
    private readonly stop: AbortSignal,
  ) {}

  push(body: string): void {
    if (this.queue.length >= this.d.maxQueued) {
      this.d.onDiagnostic(
        `tessera gateway: notifications to ${this.shown}: ${this.d.maxQueued} are waiting; one dropped`,
      );
      return;
    }
    this.queue.push(body);
    this.start();
  }

  /** Work through the queue unless already doing so; one pushed while the last run ended starts another. */
  private start(): void {
    if (this.running !== null || this.queue.length === 0 || this.stop.aborted) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      this.start();
    });
  }

  /** Resolves when the queue is empty and nothing is being sent. */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private async drain(): Promise<void> {
    for (let body = this.queue.shift(); body !== undefined && !this.stop.aborted; body = this.queue.shift())
      await this.deliver(body);
    this.queue.length = 0;
  }

  /** Try `body` up to `attempts` times; report the last failure. */
  private async deliver(body: string): Promise<void> {
    let failure = "";
    for (let n = 1; n <= this.d.attempts && !this.stop.aborted; n++) {
      if (n > 1 && !(await pause(this.d.backoffMs(n - 1), this.stop))) return;
      // one try: its own timeout, and the notifier's stop; both let go of once it ends
      const attempt = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attempt.abort();
      }, this.d.timeoutMs);
      timer.unref();
      const onStop = () => attempt.abort();
      this.stop.addEventListener("abort", onStop, { once: true });
      try {
        const res = await fetch(this.url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "tessera-gateway" },
          body,
          signal: attempt.signal,
          redirect: "error",
        });
        await res.body?.cancel().catch(() => undefined);
        if (res.ok) return;
        failure = `HTTP ${res.status}`;
        if (!RETRIED_STATUS(res.status)) break;
      } catch (err) {
        if (this.stop.aborted) return;
        failure = timedOut ? `no answer within ${this.d.timeoutMs} ms` : errorText(err);
      } finally {
        clearTimeout(timer);
        this.stop.removeEventListener("abort", onStop);
      }
    }
    if (!this.stop.aborted)
      this.d.onDiagnostic(`tessera gateway: a notification to ${this.shown} was not delivered: ${failure}`);
  }
}

/** The cause of a failed fetch in a few words (undici wraps the system error). */
function errorText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** `ms` of quiet: true when it passed, false when `stop` came first (the timer is cleared either way). */
function pause(ms: number, stop: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const onStop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      stop.removeEventListener("abort", onStop);
      resolve(true);
    }, ms);
    timer.unref();
    stop.addEventListener("abort", onStop, { once: true });
  });
}

/** Delivers notifications to every receiver, off the caller's path. */
export class Notifier {
  private readonly receivers: Receiver[];
  private readonly stopping = new AbortController();
  private readonly format: NotifyFormat;
  private readonly graceMs: number;

  constructor(options: DeliveryOptions) {
    this.format = options.format ?? "json";
    this.graceMs = options.graceMs ?? 2_000;
    const d = {
      attempts: options.attempts ?? 4,
      backoffMs: options.backoffMs ?? ((n: number) => 1_000 * 2 ** (n - 1)),
      timeoutMs: options.timeoutMs ?? 5_000,
      maxQueued: options.maxQueued ?? 256,
      graceMs: this.graceMs,
      onDiagnostic: options.onDiagnostic ?? (() => undefined),
    };
    this.receivers = options.urls.map((u) => new Receiver(u, checkNotifyUrl(u).origin, d, this.stopping.signal));
  }

  /** Queue `n` for every receiver and return at once. */
  send(n: Notification): void {
    if (this.stopping.signal.aborted) return;
    const body = notificationBody(n, this.format);
    for (const r of this.receivers) r.push(body);
  }

  /** Resolves when every queue is empty. */
  async idle(): Promise<void> {
    await Promise.all(this.receivers.map((r) => r.idle()));
  }

  /** Let queued notifications go out for up to the grace period, then stop every delivery. */
  async close(): Promise<void> {
    if (!this.stopping.signal.aborted) {
      const grace = new AbortController();
      await Promise.race([this.idle(), pause(this.graceMs, grace.signal)]);
      grace.abort();
    }
    this.stopping.abort();
    await this.idle();
  }
}
