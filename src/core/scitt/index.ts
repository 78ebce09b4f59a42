export { cwtClaimsOf, LEGACY_CWT_CLAIMS } from "./cwt-claims.js";
export { checkRegistrationPolicy, type PolicyVerdict } from "./policy.js";
export { type Problem, problemDetails, problemJson } from "./problem.js";
export { REGISTERED_EVENT_TYPE, registeredEvent, statementDigest } from "./registered.js";
export {
  eventToStatement,
  isStatement,
  LABEL,
  missingTemplateAttributes,
  payloadBytes,
  REQUIRED_TEMPLATE,
  STATEMENT_TYP,
  StatementError,
  type StatementOptions,
  statementHeader,
  statementToEventAttributes,
} from "./statement.js";
export {
  attachReceipts,
  RECORD_JSON,
  registeredLeaf,
  registeredTreeLeaf,
  statementMatchesRecord,
  type TransparentVerdict,
  verifyStatement,
} from "./transparent.js";
