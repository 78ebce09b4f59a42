export { evaluateCurrentOutstanding } from "./current-outstanding.js";
export { evaluateDynamicTolerance } from "./dynamic-tolerance.js";
export { evaluateCompliance } from "./evaluate.js";
export { evaluatePeriodOutstanding } from "./period-outstanding.js";
export { evaluateRichness } from "./richness.js";
export {
  parseRichnessAssertion,
  type RichnessAssertion,
  type RichnessOperator,
} from "./richness-assertion.js";
export { evaluateSince } from "./since.js";
export {
  COMPLIANCE_TYPES,
  type ComplianceContext,
  type ComplianceEvent,
  type CompliancePolicy,
  type CompliancePolicyInput,
  type ComplianceResult,
  type ComplianceType,
  type OrClause,
} from "./types.js";
export { validateCompliancePolicyInput } from "./validate.js";
