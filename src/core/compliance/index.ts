export { evaluateCompliance } from "./evaluate.js";

export {
  COMPLIANCE_TYPES,
  type CompliancePolicyInput,
} from "./types.js";
export { validateCompliancePolicyInput } from "./validate.js";
