import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Any function of a module loaded at run time (its real type is not known to the bench). */
export type Fn = (...args: unknown[]) => unknown;
/** A module's exports. */
export type Module = Record<string, unknown>;

/**
 * Loads a compiled module of the project by path at run time, or undefined when it is not
 * built: other parts of the project may not exist yet, and the bench then reports n/a.
 */
export async function load(rel: string): Promise<Module | undefined> {
  const url = new URL(rel, import.meta.url);
  if (!existsSync(fileURLToPath(url))) return undefined;
  return (await import(url.href)) as Module;
}

/** An exported function by name, if the module has one. */
export function fn(m: Module | undefined, name: string): Fn | undefined {
  const f = m?.[name];
  return typeof f === "function" ? (f as Fn) : undefined;
}
