/**
 * A live gate (adr/0130): a Gate whose policy is reloaded from its file on SIGHUP or when the file
 * changes, for long-running hosts (`tessera gateway`, `tessera mcp`, and any server that takes its
 * Gate per request). Each call runs on the gate in force when it started and holds it until it
 * finishes, so in-flight calls end under the policy they started with; a replaced gate closes once
 * its last call is done. A new policy that does not load (or that `validate` refuses) leaves the
 * old one in force, and `onEvent` says why.
 * @module
 */
import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { CheckOptions, Decision, ToolCall, TrustedContext } from "./checks/decision.js";
import type { Gate } from "./checks/engine.js";
import type { Policy } from "./checks/policy.js";

/** What a reload did. */
export type ReloadResult =
  | { readonly kind: "reloaded"; readonly from: string; readonly to: string }
  | { readonly kind: "unchanged"; readonly digest: string }
  | { readonly kind: "kept"; readonly digest: string; readonly reason: string };

/** How a live gate loads, checks and builds each policy, and where it reports. */
export interface LiveGateOptions {
  /** The policy file, resolved against `cwd`. */
  readonly file: string;
  readonly cwd?: string;
  /** Load and validate the file (the CLI: `loadPolicy` with its environment); throws with a one-line reason. */
  readonly load: (file: string) => Promise<Policy>;
  /** Build the gate of a loaded policy (`createGate`, or the engine alone). */
  readonly build: (policy: Policy) => Gate;
  /**
   * Refuse a reloaded policy the host cannot serve (a trusted context it cannot bind); throws with
   * the reason. The first policy is the caller's to check, so it can order its own start-up errors.
   */
  readonly validate?: (policy: Policy) => void;
  /** One line per reload, kept policy or failure, for the host's stderr. */
  readonly onEvent?: (line: string) => void;
  /** A note on a newly loaded policy, added to its `reloaded` line (the CLI: whether it is in shadow mode). */
  readonly note?: (policy: Policy) => string | null;
  /** How long the file must be quiet before it is read again (default 100 ms): editors write in bursts. */
  readonly debounceMs?: number;
}

/** A Gate that reloads its policy; `check` and `use` always run on one whole gate. */
export interface LiveGate extends Gate {
  /** The policy in force now. */
  readonly policy: Policy;
  /** Run `fn` on the gate in force now, which stays open until `fn` settles. */
  use<T>(fn: (gate: Gate) => Promise<T>): Promise<T>;
  /** Read the file again and swap in its policy if it loads; never throws. */
  reload(): Promise<ReloadResult>;
  /** Reload on SIGHUP and whenever the file changes (also when an editor replaces it by rename). */
  watch(): void;
  /** The policies this gate has served, most recent first (the gateway binds approvals to each one's digests). */
  policies(): readonly Policy[];
}

interface Entry {
  readonly policy: Policy;
  readonly gate: Gate;
  inFlight: number;
  retired: boolean;
}

/** How many earlier policies `policies()` remembers. */
const REMEMBERED = 8;

function reasonOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
}

/** Load the first policy (throws as `load` does) and return its live gate. */
export async function createLiveGate(options: LiveGateOptions): Promise<LiveGate> {
  const path = resolve(options.cwd ?? process.cwd(), options.file);
  const say = options.onEvent ?? (() => undefined);
  const debounceMs = options.debounceMs ?? 100;
  const first = await options.load(options.file);
  let entry: Entry = { policy: first, gate: options.build(first), inFlight: 0, retired: false };
  const served: Policy[] = [first];
  let lastText = await readFile(path, "utf8").catch(() => null);
  let closed = false;
  let reloading: Promise<ReloadResult> | null = null;
  let again = false;
  let watcher: FSWatcher | null = null;
  let timer: NodeJS.Timeout | null = null;
  const retiring = new Set<Promise<void>>();

  const closeRetired = (e: Entry) => {
    const done = e.gate.close().catch(() => undefined);
    retiring.add(done);
    void done.finally(() => retiring.delete(done));
  };

  async function use<T>(fn: (gate: Gate) => Promise<T>): Promise<T> {
    const e = entry; // read once: this call runs on this gate, whatever a reload does meanwhile
    e.inFlight++;
    try {
      return await fn(e.gate);
    } finally {
      e.inFlight--;
      if (e.retired && e.inFlight === 0) closeRetired(e);
    }
  }

  async function reloadOnce(): Promise<ReloadResult> {
    const from = entry.policy.digest;
    const text = await readFile(path, "utf8").catch(() => null);
    if (text !== null && text === lastText) return { kind: "unchanged", digest: from };
    let policy: Policy;
    try {
      policy = await options.load(options.file);
      options.validate?.(policy);
    } catch (err) {
      const reason = reasonOf(err);
      say(`kept policy ${from}: the new policy does not load: ${reason}`);
      return { kind: "kept", digest: from, reason };
    }
    lastText = text;
    if (policy.digest === from) return { kind: "unchanged", digest: from };
    if (closed) return { kind: "kept", digest: from, reason: "the gate is closed" };
    const old = entry;
    entry = { policy, gate: options.build(policy), inFlight: 0, retired: false };
    served.unshift(policy);
    if (served.length > REMEMBERED) served.pop();
    old.retired = true;
    if (old.inFlight === 0) closeRetired(old);
    const note = options.note?.(policy) ?? null;
    say(`reloaded the policy: ${from} -> ${policy.digest}${note === null ? "" : `; ${note}`}`);
    return { kind: "reloaded", from, to: policy.digest };
  }

  // one reload at a time; a change during a reload reads the file once more afterwards
  function reload(): Promise<ReloadResult> {
    if (reloading !== null) {
      again = true;
      return reloading;
    }
    const run = (async () => {
      let result = await reloadOnce();
      while (again) {
        again = false;
        result = await reloadOnce();
      }
      return result;
    })().finally(() => {
      reloading = null;
    });
    reloading = run;
    return run;
  }

  const onSignal = () => void reload();

  function schedule(): void {
    if (closed) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void reload();
    }, debounceMs);
    timer.unref();
  }

  return {
    get policy() {
      return entry.policy;
    },
    check: (call: ToolCall, context?: TrustedContext, checkOptions?: CheckOptions): Promise<Decision> =>
      use((gate) => gate.check(call, context, checkOptions)),
    use,
    reload,
    policies: () => [...served],
    watch() {
      if (watcher !== null || closed) return;
      process.on("SIGHUP", onSignal);
      // the folder, not the file: an editor that saves by writing a new file and renaming it over
      // the old one leaves a watch on the old file's inode watching nothing
      const name = basename(path);
      watcher = watch(dirname(path), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) schedule();
      });
      watcher.on("error", (err) => say(`stopped watching ${options.file}: ${reasonOf(err)}`));
    },
    async close() {
      if (closed) return;
      closed = true;
      process.off("SIGHUP", onSignal);
      watcher?.close();
      if (timer !== null) clearTimeout(timer);
      await reloading?.catch(() => undefined);
      entry.retired = true;
      if (entry.inFlight === 0) await entry.gate.close();
      await Promise.all(retiring);
    },
  };
}
