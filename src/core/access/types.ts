import type { PolicyFilter } from "../filters/policy-filter.js";
import type { UserAttributeFilter } from "../filters/user-attributes.js";

/** Every name, or these names ("*" in a policy list means every name). */
export type NameSet = "*" | Set<string>;

/** One access permission of a policy, every list present (validation fills in `[]`). */
export interface AccessPermission {
  asset_attributes_read: readonly string[];
  asset_attributes_write: readonly string[];
  behaviours: readonly string[];
  event_arc_display_type_read: readonly string[];
  event_arc_display_type_write: readonly string[];
  include_attributes: readonly string[];
  /** OBAC: `subjects/<uuid>` identities of other organisations. */
  subjects: readonly string[];
  /** ABAC: callers inside the tenancy (outer AND, inner OR). */
  user_attributes: readonly UserAttributeFilter[];
}

/** An access policy as evaluation needs it (filters parsed). */
export interface AccessPolicy {
  display_name?: string;
  description?: string;
  /** Which assets it applies to (outer AND, inner OR). */
  filters: readonly PolicyFilter[];
  access_permissions: readonly AccessPermission[];
}

/** Who is asking, as the authentication layer established it. */
export interface Caller {
  kind: "application" | "member" | "external";
  /** Application: its client id; member: the identity provider's subject. */
  subject?: string;
  email?: string;
  /** Verified token claims (custom claims of an application included). */
  claims: Readonly<Record<string, unknown>>;
  groups?: readonly string[];
  /** OBAC: the `subjects/<uuid>` identities, in the sharing tenancy, that the caller's organisation matches. */
  externalSubjectIdentities?: readonly string[];
  isAdmin: boolean;
}

/** What a caller may do with one asset: the union of every matching permission. */
export interface AccessGrant {
  read: boolean;
  readAttributes: NameSet;
  writeAttributes: NameSet;
  eventTypesRead: NameSet;
  eventTypesWrite: NameSet;
  behaviours: NameSet;
}
