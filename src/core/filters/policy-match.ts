import { attributeText } from "./jsonb-text.js";
import type { PolicyCondition, PolicyFilter } from "./policy-filter.js";

/** True when the attributes pass every filter (each: any of its conditions). No filters: true. */
export function matchPolicyFilters(
  filters: readonly PolicyFilter[],
  attributes: Readonly<Record<string, unknown>>,
): boolean {
  return filters.every((f) => f.or.some((c) => matchCondition(c, attributes)));
}

/** One condition, with `->>` text semantics; `!=` holds for a missing attribute. */
function matchCondition(c: PolicyCondition, attributes: Readonly<Record<string, unknown>>): boolean {
  const text = attributeText(attributes, c.name);
  switch (c.op) {
    case "eq":
      return text === c.value;
    case "ne":
      return text !== c.value;
    case "present":
      return text !== null && text !== "";
    case "absent":
      return text === null || text === "";
  }
}
