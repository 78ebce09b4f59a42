import { purposesOf } from "../../../src/formats/lifecycle/vocabulary.js";
import { ConserverError } from "../errors.js";
import { buildVconEvent, isKnownOperation, type TemplateConfig, type VconEventBody } from "../template.js";
import type { VconDocument } from "../vcon.js";
import { isRecord } from "../vcon.js";
import { optBool, optFallback, optHashMode, optString } from "./options.js";
import type { LinkContext } from "./types.js";

/** The template options every link takes (YAML names), with their defaults. */
export const TEMPLATE_OPTION_DEFAULTS: Record<string, unknown> = {
  hash_mode: undefined,
  payload_preimage_content_type: "application/vcon+json",
  vcon_draft_version: "01",
  scitt_draft_version: "10",
  timestamp_fallback: "now",
  purpose: undefined,
  party_attributes: false,
};

/** The `purpose` option: one purpose, a comma-separated list, or a YAML list of them. */
function optPurposes(o: Record<string, unknown>, link: string): string[] | undefined {
  const v = o.purpose;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" && !(Array.isArray(v) && v.every((p) => typeof p === "string")))
    throw new ConserverError("LINK_OPTIONS", `${link}: option purpose must be a string or a list of strings`);
  const purposes = purposesOf(v);
  if (purposes.length === 0)
    throw new ConserverError("LINK_OPTIONS", `${link}: option purpose names no purpose`);
  return purposes;
}

function extras(o: Record<string, unknown>): Record<string, string> | undefined {
  const v = o.extra_attributes;
  if (!isRecord(v)) return undefined;
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** The template settings a link's options give (shared by the archivist and scitt links). */
function templateConfig(
  o: Record<string, unknown>,
  link: string,
  linkName: string,
  ctx: LinkContext,
): TemplateConfig {
  const cfg: TemplateConfig = {
    link,
    linkName,
    hashMode: optHashMode(o, linkName, ctx.defaultHashMode),
    timestampFallback: optFallback(o, linkName),
  };
  const pct = optString(o, "payload_preimage_content_type", linkName);
  if (pct) cfg.preimageContentType = pct;
  const vdv = optString(o, "vcon_draft_version", linkName);
  if (vdv) cfg.vconDraftVersion = vdv;
  const sdv = optString(o, "scitt_draft_version", linkName);
  if (sdv) cfg.scittDraftVersion = sdv;
  if (optBool(o, "party_attributes", linkName, false)) cfg.partyAttributes = true;
  const purposes = optPurposes(o, linkName);
  if (purposes) cfg.purposes = purposes;
  const extra = extras(o);
  if (extra) cfg.extraAttributes = extra;
  if (ctx.now) cfg.now = ctx.now;
  return cfg;
}

/**
 * The unknown operations already said, per link, for each runtime's logger: the operation is the
 * link's configuration, not the vCon's, so saying it once is all there is to say; said per vCon it
 * was a log line per record (10,000 a conserver bench pass) and a share of the chain's CPU.
 */
const saidUnknown = new WeakMap<object, Set<string>>();

/** Reads the vCon a link runs on and builds its template event for the `vcon_operation` option. */
export async function linkEvent(
  vconUuid: string,
  link: string,
  linkName: string,
  o: Record<string, unknown>,
  ctx: LinkContext,
): Promise<{ doc: VconDocument; event: VconEventBody }> {
  const doc = await ctx.store.get(vconUuid);
  if (!doc) throw new ConserverError("VCON_NOT_FOUND", `${linkName}: vCon not found: ${vconUuid}`);
  const operation = String(o.vcon_operation ?? "");
  const event = buildVconEvent(doc, operation, templateConfig(o, link, linkName, ctx));
  // The set is open: an operation the vocabulary does not know is recorded as it is, and said.
  if (!isKnownOperation(operation)) {
    const said = saidUnknown.get(ctx.log) ?? new Set<string>();
    saidUnknown.set(ctx.log, said);
    const key = `${linkName}\u0000${operation}`;
    if (!said.has(key)) {
      said.add(key);
      ctx.log.warn(
        { link: linkName, operation },
        "unknown lifecycle operation: recorded as it is (said once per link)",
      );
    }
  }
  return { doc, event };
}
