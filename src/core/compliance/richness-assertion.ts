/** The comparison operators of a richness assertion. */
export type RichnessOperator = "=" | "!=" | ">" | "<" | ">=" | "<=";

/** A parsed `<attribute><operator><value>` assertion. */
export interface RichnessAssertion {
  attribute: string;
  operator: RichnessOperator;
  value: string;
}

/** The operator starting at `i`, if any; a lone `!` is part of a name, not an operator. */
function operatorAt(text: string, i: number): RichnessOperator | undefined {
  const char = text[i];
  const next = text[i + 1];
  if (char === "!") return next === "=" ? "!=" : undefined;
  if (char === "<" || char === ">") return next === "=" ? `${char}=` : char;
  return char === "=" ? "=" : undefined;
}

/**
 * Splits an assertion at its first operator: `rad<=7` → rad, <=, 7. The attribute must
 * not be empty; the value may be (`serial!=` asserts a non-empty serial).
 */
export function parseRichnessAssertion(text: string): RichnessAssertion | undefined {
  for (let i = 0; i < text.length; i++) {
    const operator = operatorAt(text, i);
    if (operator === undefined) continue;
    const attribute = text.slice(0, i).trim();
    if (attribute === "") return undefined;
    return { attribute, operator, value: text.slice(i + operator.length).trim() };
  }
  return undefined;
}
