export { LEGACY_CWT_CLAIMS } from "../../verify/scitt/cwt-claims.js";
export { registeredEvent } from "../../verify/scitt/registered.js";
export {
  eventToStatement,
  StatementError,
  statementToEventAttributes,
} from "../../verify/scitt/statement.js";
export {
  attachReceipts,
  registeredTreeLeaf,
  verifyStatement,
} from "../../verify/scitt/transparent.js";
export {
  checkRegistrationPolicy,
  checkScreenedStatement,
  type ScreenedStatement,
  screenStatement,
} from "./policy.js";
export { type Problem, problemDetails, problemJson } from "./problem.js";
