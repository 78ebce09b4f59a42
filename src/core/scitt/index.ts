export { LEGACY_CWT_CLAIMS } from "../../formats/scitt/cwt-claims.js";
export { registeredEvent } from "../../formats/scitt/registered.js";
export { StatementError, statementToEventAttributes } from "../../formats/scitt/statement.js";
export { attachReceipts, registeredTreeLeaf } from "../../formats/scitt/transparent-statement.js";
export {
  checkRegistrationPolicy,
  checkScreenedStatement,
  type ScreenedStatement,
  screenStatement,
} from "./policy.js";
export { type Problem, problemDetails, problemJson } from "./problem.js";
export { eventToStatement } from "./statement.js";
