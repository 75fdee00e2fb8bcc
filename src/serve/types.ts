/**
 * What the route handlers share: the reply they return and the service's fixed parts.
 * @module
 */
import type { EventLog } from "../review/open.js";
import type { ReviewStore } from "../review/types.js";
import type { WithPolicy } from "./current.js";
import type { Readiness } from "./readiness.js";
import type { GroundedResult } from "../answers/index.js";
import type { verifyProposal } from "../actions/index.js";

/** An opened workspace as verification uses it: ground a question, look a record up, close. */
export interface WorkspaceAccess {
  ground(question: string): GroundedResult;
  getRecord: Parameters<typeof verifyProposal>[1];
  close(): void;
}

/** A handler's answer: status, JSON text and extra headers. */
export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The service's fixed parts, as every handler sees them. */
export interface ServeParts {
  /** Runs one request under the policy in force when it starts (held until it settles). */
  readonly withPolicy: WithPolicy;
  /** The review queue and the audit log (one store: SQLite or Postgres). */
  readonly reviews: ReviewStore;
  readonly audit: EventLog;
  /** Keep argument, context and row values in decision events (the policy's `audit.values`). */
  readonly auditValues: boolean;
  readonly clock: () => number;
  readonly approvalTtlMs: number;
  readonly reviewTtlMs: number;
  /** The workspace proposals are verified against, when the service has one. */
  readonly workspace: (() => Promise<WorkspaceAccess>) | null;
  readonly readiness: Readiness;
}
