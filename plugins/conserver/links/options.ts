import { ConserverError } from "../errors.js";
import type { TimestampFallback } from "../template.js";
import { type HashMode, isHashMode, isRecord } from "../vcon.js";

/** `defaults` overlaid with `options` (which may be null, as the Python conserver allows). */
export function mergeOptions(defaults: Record<string, unknown>, options: unknown): Record<string, unknown> {
  if (options === null || options === undefined) return { ...defaults };
  if (!isRecord(options)) throw new ConserverError("LINK_OPTIONS", "link options must be a mapping");
  return { ...defaults, ...options };
}

/** A string option, or undefined when absent; throws naming the option when it has another type. */
export function optString(o: Record<string, unknown>, key: string, link: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string")
    throw new ConserverError("LINK_OPTIONS", `${link}: option ${key} must be a string`);
  return v;
}

/** A boolean option (true/false, 1/0 as YAML configs often write). */
export function optBool(o: Record<string, unknown>, key: string, link: string, dflt: boolean): boolean {
  const v = o[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  throw new ConserverError("LINK_OPTIONS", `${link}: option ${key} must be true or false`);
}

/** The `hash_mode` option, defaulting to the runtime's mode. */
export function optHashMode(o: Record<string, unknown>, link: string, dflt: HashMode): HashMode {
  const v = o.hash_mode ?? dflt;
  if (!isHashMode(v))
    throw new ConserverError(
      "LINK_OPTIONS",
      `${link}: option hash_mode must be raw, python-json, python-json-normalized or jcs`,
    );
  return v;
}

/** The `timestamp_fallback` option. */
export function optFallback(o: Record<string, unknown>, link: string): TimestampFallback {
  const v = o.timestamp_fallback ?? "now";
  if (v !== "now" && v !== "omit" && v !== "reject")
    throw new ConserverError(
      "LINK_OPTIONS",
      `${link}: option timestamp_fallback must be now, omit or reject`,
    );
  return v;
}
