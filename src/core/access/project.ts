import { hasName } from "./name-set.js";
import type { AccessGrant } from "./types.js";

type Attributes = Readonly<Record<string, unknown>>;

/** Keeps only the attributes the grant lets the caller read. */
export function projectAttributes(attributes: Attributes, grant: AccessGrant): Record<string, unknown> {
  if (grant.readAttributes === "*") return { ...attributes };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attributes)) if (hasName(grant.readAttributes, k)) out[k] = v;
  return out;
}

/** The asset as the caller may see it, or undefined when it may not read the asset at all. */
export function projectAsset<T extends { attributes: Attributes }>(
  asset: T,
  grant: AccessGrant,
): T | undefined {
  if (!grant.read) return undefined;
  return { ...asset, attributes: projectAttributes(asset.attributes, grant) };
}

/** Readable by its arc_display_type; an event without one is readable only under "*". */
export function canReadEvent(eventAttributes: Attributes, grant: AccessGrant): boolean {
  if (!grant.read) return false;
  if (grant.eventTypesRead === "*") return true;
  const type = Object.hasOwn(eventAttributes, "arc_display_type")
    ? eventAttributes.arc_display_type
    : undefined;
  return typeof type === "string" && grant.eventTypesRead.has(type);
}

/**
 * The event as the caller may see it, or undefined when it may not read it. A readable
 * event keeps its event attributes whole (the type permission is about the event); the
 * asset attribute changes it carries are cut to the readable asset attributes.
 */
export function projectEvent<T extends { event_attributes: Attributes; asset_attributes: Attributes }>(
  event: T,
  grant: AccessGrant,
): T | undefined {
  if (!canReadEvent(event.event_attributes, grant)) return undefined;
  return { ...event, asset_attributes: projectAttributes(event.asset_attributes, grant) };
}
