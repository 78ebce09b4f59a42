import type { TemplateConfig } from "../template.js";
import { isRecord } from "../vcon/unsigned-check.js";
import { optFallback, optHashMode, optString } from "./options.js";
import type { LinkContext } from "./types.js";

function extras(o: Record<string, unknown>): Record<string, string> | undefined {
  const v = o.extra_attributes;
  if (!isRecord(v)) return undefined;
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** The template settings a link's options give (shared by the archivist and scitt links). */
export function templateConfig(
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
  const extra = extras(o);
  if (extra) cfg.extraAttributes = extra;
  if (ctx.now) cfg.now = ctx.now;
  return cfg;
}
