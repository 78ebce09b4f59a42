export { CborError, DEFAULT_LIMITS, type DecodeLimits, decodeCbor } from "./decode.js";
export { type CborValue, encodeCbor, Tagged } from "./encode.js";
