/**
 * Starting the service: the store (review queue and audit log), the gate, the callers, the
 * readiness probes, then the socket. Everything is checked before the socket opens, so a service
 * that cannot start leaves nothing listening; `close` undoes it in reverse.
 * @module
 */
import { effectivePolicyDigest } from "../checks/effective.js";
import type { OpenSource } from "../checks/engine.js";
import type { Policy } from "../checks/policy.js";
import { createGate, registryOpener } from "../gate.js";
import { openGatewayStore, isPostgres } from "../review/open.js";
import { DEFAULT_REVIEW_TTL_MS } from "../review/types.js";
import type { Callers } from "./auth.js";
import type { LiveGate } from "../live-gate.js";
import { type Current, fixedCurrent, liveCurrent, withCurrent, withLiveGate } from "./current.js";
import { type Listening, listen } from "./listen.js";
import { createReadiness, DEFAULT_PROBE_INTERVAL_MS } from "./readiness.js";
import { createService, type ServiceLimits } from "./service.js";
import type { ServeParts, WorkspaceAccess } from "./types.js";

/** How long an approval from the queue stays valid by default: 15 minutes, as in the gateway. */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;

/** What `startServe` needs. */
export interface ServeOptions {
  readonly policy: Policy;
  readonly callers: Callers;
  /** The store: a SQLite file or a `postgres://…` URL shared by several instances. */
  readonly store: string;
  /** Create a Postgres store's tables when missing (a file is always created). */
  readonly create?: boolean;
  readonly host: string;
  readonly port: number;
  readonly limits: ServiceLimits;
  readonly approvalTtlMs?: number;
  readonly reviewTtlMs?: number;
  readonly probeIntervalMs?: number;
  readonly workspace?: () => Promise<WorkspaceAccess>;
  /** Replace how Sources open (tests replaying recorded Sources); default: the registry's adapters. */
  readonly openSource?: OpenSource;
  /** How readiness probes open Sources (default: as the gate opens them). */
  readonly probeOpenSource?: OpenSource;
  /**
   * Where each request gets the policy in force (a reloader swaps what it answers); default: one
   * gate over `policy`, closed with the service. A given `current` is the caller's to close.
   */
  readonly current?: Current;
  /**
   * A live gate (adr/0130) to decide with instead: each request runs on the policy in force when it
   * starts, and reloads swap it. The caller's to watch and to close.
   */
  readonly live?: LiveGate;
  /** The effective policy digest; default: computed from the loaded policy. */
  readonly effectiveDigest?: string;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
}

/** A running service. */
export interface Serving extends Listening {
  /** Where requests get the policy in force. */
  readonly current: Current;
  readonly storeKind: "sqlite" | "postgres";
}

/** Open everything and listen. */
export async function startServe(o: ServeOptions): Promise<Serving> {
  const log = o.log ?? (() => {});
  const open = o.openSource ?? registryOpener(o.policy);
  const store = await openGatewayStore(o.store, { mustExist: isPostgres(o.store) && o.create !== true });
  // the service writes its own decision events, so the gate itself audits nothing
  const { audit: _audit, ...unaudited } = o.policy;
  const given = o.live !== undefined ? liveCurrent(o.live) : o.current;
  const gate = given === undefined ? createGate(unaudited, { openSource: open }) : null;
  const current = given ?? fixedCurrent(gate!, o.effectiveDigest ?? effectivePolicyDigest(o.policy));
  const readiness = createReadiness(
    o.policy,
    o.probeOpenSource ?? open,
    o.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS,
  );
  const parts: ServeParts = {
    withPolicy: o.live !== undefined ? withLiveGate(o.live) : withCurrent(current),
    reviews: store.reviews,
    audit: store.audit,
    auditValues: o.policy.audit?.values ?? false,
    clock: o.clock ?? Date.now,
    approvalTtlMs: o.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    reviewTtlMs: o.reviewTtlMs ?? DEFAULT_REVIEW_TTL_MS,
    workspace: o.workspace ?? null,
    readiness,
  };
  let listening: Listening;
  try {
    await readiness.probe(); // readiness is known before the first request
    listening = await listen(createService(parts, o.callers, o.limits, log), o.host, o.port, o.limits.deadlineMs);
  } catch (err) {
    await readiness.close();
    await gate?.close();
    await store.close();
    throw err;
  }
  return {
    ...listening,
    current,
    storeKind: store.kind,
    async close() {
      await listening.close();
      await readiness.close();
      await gate?.close();
      await store.close();
    },
  };
}
