/**
 * Every stable error code Tessera gives, as string-literal unions, and the exit codes of the CLI.
 * A `TesseraError` carries one of these codes; specs/cli.md pins what each exit code means.
 * @module
 */
import type { NumberProblemCode } from "../core/numbers.js";

/** The exit codes shared by every command (specs/cli.md, "Exit codes"). */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  hold: 3,
  unavailable: 4,
} as const;

/** One of `EXIT`'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What the JSON reader refuses in a document it otherwise parses (specs/json-shapes.md). */
export type JsonInputCode = "duplicate_key" | "number_unsafe" | "number_inexact";

/** Error codes every Source adapter maps its failures to, so retry and `on_error` behave the same everywhere. */
export type SourceErrorCode =
  | "source_timeout"
  | "source_auth_failed"
  | "source_unreachable"
  | "source_server_error"
  | "source_invalid_query"
  | "source_malformed_response"
  | "source_tool_error"
  /** The result names a column (a JSON key) twice, so a row could hold only one of its values (adr/0060). */
  | "column_ambiguous"
  /** A result value is not a scalar: binary data, a list, a structured value (adr/0060). */
  | "column_type_unsupported";

/** Failures of the gateway's upstream MCP server, as tool errors and forward events carry them. */
export type UpstreamErrorCode =
  | "upstream_unavailable"
  | "upstream_closed"
  | "upstream_timeout"
  | "upstream_malformed_response"
  | "upstream_error";

/** The codes of a policy's lint issues; the first error's is the code of its `PolicyError` (specs/policy.md). */
export type PolicyIssueCode =
  | JsonInputCode
  | NumberProblemCode
  | "yaml_invalid"
  | "schema_invalid"
  | "env_missing"
  | "env_invalid"
  | "source_undefined"
  | "request_kind"
  | "binding_undeclared"
  | "argument_unused"
  | "arg_reads_context"
  | "on_error_allow"
  | "unlisted_tools_default"
  | "placeholder_quoted"
  | "placeholder_syntax"
  | "sql_many_statements"
  | "sql_not_read_only"
  | "sql_syntax"
  /** `tessera policy lint` against a SQLite Source's file. */
  | "sqlite_missing"
  | "sqlite_full_scan"
  | "sqlite_invalid_query"
  /** `tessera policy lint --connect` against the live Sources (adr/0127). */
  | "connect_failed"
  | "connect_query_invalid"
  | "connect_column_missing"
  | "connect_not_checked";

/** What a command, a tool or a library call could not take as input. */
export type InputErrorCode =
  | JsonInputCode
  | "usage_error"
  | "input_invalid"
  | "invalid_input"
  | "input_not_found"
  | "input_too_large"
  | "call_invalid"
  | "call_unreadable"
  | "context_invalid"
  | "context_unreadable"
  | "claims_invalid"
  | "proposal_invalid"
  | "grounding_invalid"
  | "records_invalid"
  | "unknown_action"
  | "invalid_authorization"
  | "invalid_delivery_policy"
  | "invalid_principal"
  | "invalid_reason"
  | "invalid_ttl"
  | "invalid_limit"
  | "token_missing"
  | "token_too_short";

/** Files, stores and folders a command needs and could not use. */
export type StoreErrorCode =
  | "policy_invalid"
  | "policy_unreadable"
  | "workspace_not_found"
  | "store_invalid"
  | "store_missing"
  | "store_unavailable"
  | "case_invalid"
  | "case_not_found"
  | "recording_invalid"
  | "bench_missing"
  | "git_not_found"
  | "git_failed"
  | "audit_closed"
  | "audit_payload_invalid"
  | "audit_type_invalid"
  | "audit_unreadable"
  | "audit_event_not_found"
  | "audit_unwritable"
  | "audit_write_failed";

/** The MCP server's and the gateway's own refusals. */
export type ServiceErrorCode =
  | "workspace_missing"
  | "policy_missing"
  | "gate_closed"
  | "listen_failed"
  | "review_not_found"
  | "review_not_pending"
  | "tool_not_pinned"
  | "tool_not_changed"
  | "tool_digest_mismatch";

/** Every code a `TesseraError` may carry. */
export type TesseraErrorCode =
  | InputErrorCode
  | StoreErrorCode
  | ServiceErrorCode
  | PolicyIssueCode
  | SourceErrorCode
  | UpstreamErrorCode;
