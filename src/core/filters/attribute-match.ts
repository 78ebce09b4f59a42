import type { AttributeFilter, AttributeRecord } from "./attribute-filter.js";
import { attributeText } from "./jsonb-text.js";

/** In-memory twin of `compileAttributeFilters`: true when the record passes every filter. */
export function matchAttributeFilters(filters: readonly AttributeFilter[], record: AttributeRecord): boolean {
  return filters.every((f) => matchOne(f, record));
}

function matchOne(f: AttributeFilter, record: AttributeRecord): boolean {
  const map = Object.hasOwn(record, f.prefix) ? record[f.prefix] : undefined;
  const text = attributeText(map, f.name);
  if (f.kind === "missing") return text === null || text === "";
  if (text === null) return false;
  return f.values.includes(text) || (f.present && text !== "");
}
