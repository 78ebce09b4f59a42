export type { AttributeFilter } from "./attribute-filter.js";
export { parseAttributeQuery } from "./attribute-query.js";

export {
  parsePolicyFilters,
  policyFiltersToWire,
} from "./policy-filter.js";
export { matchPolicyFilters } from "./policy-match.js";
export { compilePolicyFilters } from "./policy-sql.js";
