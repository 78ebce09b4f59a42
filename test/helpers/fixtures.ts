import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The known-answer vectors and sample vCons live in the repository (test/fixtures, sources named
// in its README), so a clone runs every test with nothing beside it.

/** Absolute path of a file under `test/fixtures/` (`vectors/…`, `vcon/…`). */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

/** Parsed JSON of `test/fixtures/<relative>`. */
export function fixtureJson<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(fixturePath(relative), "utf8")) as T;
}
