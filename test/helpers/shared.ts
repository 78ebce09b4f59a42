import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of a file in the read-only `../shared` folder beside the repository. */
export function sharedPath(relative: string): string {
  return fileURLToPath(new URL(`../../../shared/${relative}`, import.meta.url));
}

/** Parsed JSON from `../shared/<relative>`. */
export function sharedJson<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(sharedPath(relative), "utf8")) as T;
}
