/**
 * Grounding checks on tool calls: the policy schema and loader, the engine that decides, and the
 * Source interface adapters implement (specs/policy.md).
 * @module
 */
export {
  type CheckErrorCode,
  type CheckOptions,
  type CheckReport,
  type CheckStatus,
  type ConditionReport,
  type Decision,
  type DecisionReason,
  exitCodeFor,
  type ToolCall,
  type TrustedContext,
} from "./decision.js";
export { effectivePolicyDigest } from "./effective.js";
export { checkTrustedContext, createEngine, type Gate, type OpenSource } from "./engine.js";
export {
  analyzePolicy,
  formatIssue,
  loadPolicy,
  type LoadOptions,
  parsePolicy,
  type PolicyAnalysis,
  PolicyError,
  type PolicyIssue,
} from "./load.js";
export {
  type ArgumentPolicy,
  type CheckPolicy,
  conditionSchema,
  DEFAULT_TIMEOUT_MS,
  type HttpSourceConfig,
  type McpSourceConfig,
  type MysqlSourceConfig,
  type Policy,
  type PolicyDefaults,
  type PolicyDocument,
  policySchema,
  type PostgresSourceConfig,
  type RetryPolicy,
  SOURCE_KIND_NAMES,
  type SourceConfig,
  sourceSchema,
  type SourceKindName,
  type SqliteSourceConfig,
  type ToolPolicy,
  type UndeclaredArguments,
} from "./policy.js";
export { placeholdersOf, REQUEST_KEY, type RequestProblem, type RequestScan, splitSql } from "./requests.js";
export {
  type CheckRequest,
  type PreparedRequest,
  type Source,
  SourceError,
  type SourceErrorCode,
  type SourceResult,
} from "./source.js";
