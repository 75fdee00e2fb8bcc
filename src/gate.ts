/**
 * `createGate`: the check engine wired to the concrete adapters of registry.ts and, when asked,
 * to the audit log. Adapters load on first use of a source of their kind.
 * @module
 */
import { DECISION_EVENT, decisionPayload } from "./audit/decision.js";
import type { AuditLog } from "./audit/log.js";
import { withoutExplainedValues } from "./checks/decision.js";
import { createEngine, type Gate, type OpenSource } from "./checks/engine.js";
import type { Policy } from "./checks/policy.js";
import { SourceError } from "./checks/source.js";
import { openAdapter, SOURCE_KINDS } from "./sources/registry.js";

/** Options of `createGate`. */
export interface GateOptions {
  /**
   * Append every decision to this audit log (a file, or an open log the caller owns); overrides the
   * policy's `audit.path`.
   */
  readonly audit?: string | AuditLog;
  /** Keep argument, context and row values in audit events (default: the policy's `audit.values`, else false). */
  readonly auditValues?: boolean;
  /** The audit clock (default: the wall clock). */
  readonly clock?: () => Date;
  /** Replace how sources open (tests, embedding hosts); default: the adapters of `SOURCE_KINDS`. */
  readonly openSource?: OpenSource;
}

/** Open a source through the registry: the adapter of its kind, loaded on first use. */
export function registryOpener(policy: Policy): OpenSource {
  return async (name, config) => {
    if (!Object.hasOwn(SOURCE_KINDS, config.kind))
      throw new SourceError("source_unreachable", `no adapter for source kind \`${config.kind}\` in this build`);
    return openAdapter(name, config, policy.baseDir);
  };
}

/**
 * A Gate for `policy` over the real adapters.
 * @example
 * const gate = createGate(await loadPolicy("policy.yaml"));
 * const d = await gate.check({ tool: "refund_order", arguments: { order_id: 1001 } }, { customer_id: "c-1" });
 */
export function createGate(policy: Policy, options: GateOptions = {}): Gate {
  const engine = createEngine(policy, options.openSource ?? registryOpener(policy));
  const auditTarget = options.audit ?? policy.audit?.path;
  if (auditTarget === undefined) return engine;
  const values = options.auditValues ?? policy.audit?.values ?? false;
  let log: AuditLog | undefined = typeof auditTarget === "string" ? undefined : auditTarget;
  const owned = typeof auditTarget === "string";
  return {
    policy,
    async check(call, context = {}, checkOptions = {}) {
      const asked = checkOptions.explain === "values";
      const decision = await engine.check(
        call,
        context,
        values && !asked ? { ...checkOptions, explain: "values" } : checkOptions,
      );
      if (log === undefined) {
        const { openAuditLog } = await import("./audit/log.js"); // loads better-sqlite3 only when auditing
        log = openAuditLog(auditTarget as string, options.clock ? { clock: options.clock } : {});
      }
      log.append(DECISION_EVENT, decisionPayload(decision, call, context, { values, digest: log.digest }));
      return values && !asked ? withoutExplainedValues(decision) : decision;
    },
    async close() {
      await engine.close();
      if (owned) log?.close();
    },
  };
}
