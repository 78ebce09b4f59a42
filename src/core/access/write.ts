import { hasName } from "./name-set.js";
import type { AccessGrant } from "./types.js";

type Attributes = Readonly<Record<string, unknown>>;

/** Why the grant refuses writing this event, or undefined when it allows it. */
export function writeRefusal(
  eventAttributes: Attributes,
  assetAttributeChanges: Attributes,
  behaviour: string,
  grant: AccessGrant,
): string | undefined {
  if (!grant.read) return "no access policy grants access to this asset";
  if (!hasName(grant.behaviours, behaviour)) return `behaviour ${behaviour} is not permitted`;
  const type = Object.hasOwn(eventAttributes, "arc_display_type")
    ? eventAttributes.arc_display_type
    : undefined;
  if (grant.eventTypesWrite !== "*" && !(typeof type === "string" && grant.eventTypesWrite.has(type)))
    return typeof type === "string"
      ? `writing events of arc_display_type ${type} is not permitted`
      : "writing events without arc_display_type is not permitted";
  for (const name of Object.keys(assetAttributeChanges))
    if (!hasName(grant.writeAttributes, name)) return `writing asset attribute ${name} is not permitted`;
  return undefined;
}

/** True when the grant allows writing an event with this behaviour, type and asset changes. */
export function canWriteEvent(
  eventAttributes: Attributes,
  assetAttributeChanges: Attributes,
  behaviour: string,
  grant: AccessGrant,
): boolean {
  return writeRefusal(eventAttributes, assetAttributeChanges, behaviour, grant) === undefined;
}
