export {
  attachReceipts,
  LEGACY_CWT_CLAIMS,
  registeredEvent,
  registeredTreeLeaf,
  StatementError,
  statementToEventAttributes,
  verifyStatement,
} from "../../verify/primitives.js";
export {
  checkRegistrationPolicy,
  checkScreenedStatement,
  type ScreenedStatement,
  screenStatement,
} from "./policy.js";
export { type Problem, problemDetails, problemJson } from "./problem.js";
export { eventToStatement } from "./statement.js";
