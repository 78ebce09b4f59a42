export { checkRegistrationPolicy, type PolicyVerdict } from "./policy.js";
export { problemDetails } from "./problem.js";
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
export { attachReceipts, registeredLeaf, type TransparentVerdict, verifyStatement } from "./transparent.js";
