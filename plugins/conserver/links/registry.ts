import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConserverError } from "../errors.js";
import * as archivist from "./archivist.js";
import * as consentGate from "./consent-gate.js";
import * as provenance from "./provenance.js";
import * as scitt from "./scitt.js";
import type { LinkModule } from "./types.js";

/** Built-in links under the names a config may use (the Python module paths included). */
export const BUILTIN_LINKS: Record<string, LinkModule> = {
  archivist,
  "links.archivist": archivist,
  // A Python DataTrails config can point at this link unchanged (its options are understood).
  "links.datatrails": archivist,
  datatrails: archivist,
  scitt,
  "links.scitt": scitt,
  consent_gate: consentGate,
  "links.consent_gate": consentGate,
  provenance,
  "links.provenance": provenance,
};

function isLinkModule(m: unknown): m is LinkModule {
  const o = m as Partial<LinkModule> | null;
  return typeof o === "object" && o !== null && typeof o.run === "function";
}

/**
 * The link module a config's `module:` names: a built-in, or an ES module file (path relative
 * to the config's folder) exporting `run` and `defaultOptions`.
 */
export async function resolveLinkModule(module: string, baseDir: string, where: string): Promise<LinkModule> {
  const builtin = BUILTIN_LINKS[module];
  if (builtin) return builtin;
  if (!/^(\.{1,2}\/|\/)/.test(module) && !/\.(m?js|ts)$/.test(module))
    throw new ConserverError(
      "LINK_UNKNOWN",
      `${where}: unknown link module ${module} (built-ins: archivist, scitt, consent_gate, provenance; or a file path)`,
    );
  const path = isAbsolute(module) ? module : resolve(baseDir, module);
  let loaded: unknown;
  try {
    loaded = await import(pathToFileURL(path).href);
  } catch (err) {
    throw new ConserverError("LINK_UNKNOWN", `${where}: cannot load ${path}: ${(err as Error).message}`);
  }
  if (!isLinkModule(loaded))
    throw new ConserverError("LINK_UNKNOWN", `${where}: ${path} exports no run function`);
  return { defaultOptions: loaded.defaultOptions ?? {}, run: loaded.run };
}
