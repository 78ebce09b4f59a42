export { callerMatchesPermission } from "./caller-match.js";
export { filterableAttributes, fullGrant, grantFor } from "./grant.js";
export { hasName, intersectNames } from "./name-set.js";
export { canReadEvent, projectAttributes, projectEvent } from "./project.js";
export { compileReadableAssets, compileReadableEvents } from "./sql.js";
export type { AccessGrant, AccessPolicy, Caller, NameSet } from "./types.js";
export { validateAccessPolicyInput, validateAccessPolicyPatch } from "./validate.js";
export { accessPermissionToWire, accessPolicyToWire } from "./wire.js";
