export { COSE_TAGS, DEFAULT_LIMITS, type DecodeLimits, decodeCbor } from "./decode.js";
export { encodeCbor } from "./encode.js";
export { CborError, type CborErrorCode } from "./error.js";
export { type CborMap, type CborObject, type CborValue, isCborMap, Tagged } from "./value.js";
