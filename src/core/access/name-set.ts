import type { NameSet } from "./types.js";

/** Adds a policy's list to a set; a "*" entry makes it every name. */
export function addNames(set: NameSet, names: readonly string[]): NameSet {
  if (set === "*" || names.includes("*")) return "*";
  for (const n of names) set.add(n);
  return set;
}

/** True when the set holds the name. */
export function hasName(set: NameSet, name: string): boolean {
  return set === "*" || set.has(name);
}

/** The names in both sets. */
export function intersectNames(a: NameSet, b: NameSet): NameSet {
  if (a === "*") return b === "*" ? "*" : new Set(b);
  if (b === "*") return new Set(a);
  return new Set([...a].filter((n) => b.has(n)));
}
