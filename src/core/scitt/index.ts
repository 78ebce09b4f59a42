export { LEGACY_CWT_CLAIMS } from "./cwt-claims.js";
export {
  checkRegistrationPolicy,
  checkScreenedStatement,
  type ScreenedStatement,
  screenStatement,
} from "./policy.js";
export { type Problem, problemDetails, problemJson } from "./problem.js";
export { registeredEvent } from "./registered.js";
export {
  eventToStatement,
  StatementError,
  statementToEventAttributes,
} from "./statement.js";
export {
  attachReceipts,
  registeredTreeLeaf,
  verifyStatement,
} from "./transparent.js";
