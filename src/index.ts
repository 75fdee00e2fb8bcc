/**
 * Tessera's public API. Importing it loads no MCP SDK and no database driver: adapters load on
 * first use, and the MCP server lives behind `tessera/mcp`.
 * @module
 */
export {
  type Bindings,
  canonicalJson,
  type Claim,
  ClaimGrammar,
  type ClaimShape,
  combineOutcomes,
  compareScalars,
  type Condition,
  type ConditionCode,
  type ConditionResult,
  contains,
  decideGrounding,
  defaultClaimGrammar,
  type EvidenceRecord,
  evaluateConditions,
  type FieldResult,
  type GroundingDecision,
  type GroundingState,
  isSupported,
  type Locator,
  type MatchResult,
  normalize,
  type Outcome,
  type Row,
  type Scalar,
  scalarEquals,
  type SupportResult,
  verifyField,
} from "./core/index.js";
export { digestOf, sha256Hex } from "./platform/digest.js";
export { TesseraError } from "./platform/errors.js";
