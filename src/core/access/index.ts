export { callerMatchesPermission, matchesUserAttributes, userConditionHolds } from "./caller-match.js";
export { emptyGrant, filterableAttributes, fullGrant, grantFor } from "./grant.js";
export { addNames, hasName, intersectNames } from "./name-set.js";
export { canReadEvent, projectAsset, projectAttributes, projectEvent } from "./project.js";
export { compileReadableAssets, compileReadableEvents } from "./sql.js";
export type { AccessGrant, AccessPermission, AccessPolicy, Caller, NameSet } from "./types.js";
export { type AccessPolicyInput, validateAccessPolicyInput, validateAccessPolicyPatch } from "./validate.js";
export { accessPermissionToWire, accessPolicyToWire } from "./wire.js";
