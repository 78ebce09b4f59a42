export type { AttributeFilter } from "./attribute-filter.js";
export { parseAttributeQuery } from "./attribute-query.js";
export { attributeText, compareCodePoints, jsonbText } from "./jsonb-text.js";
export {
  type PolicyCondition,
  type PolicyFilter,
  parsePolicyCondition,
  parsePolicyFilters,
  policyFiltersToWire,
} from "./policy-filter.js";
export { matchCondition, matchPolicyFilters } from "./policy-match.js";
export { compilePolicyFilters } from "./policy-sql.js";
export { QueryError, type QueryErrorCode } from "./query-error.js";
export type { SqlFragment } from "./sql-params.js";
export {
  parseUserAttributeCondition,
  parseUserAttributeFilters,
  type UserAttributeCondition,
  type UserAttributeFilter,
  userAttributeFiltersToWire,
} from "./user-attributes.js";
