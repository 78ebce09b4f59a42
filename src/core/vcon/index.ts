export { detectForm, type VconForm } from "./form.js";
export { HASH_MODES, type HashMode, hashPreimage, hashVcon, isHashMode } from "./hash.js";
export { normalizeLegacyFields } from "./legacy.js";
export { stringifyLossless, toLossless } from "./lossless-stringify.js";
export { parseVcon, type VconDocument, vconFromObject } from "./parse.js";
export { decodeSignedPayload } from "./signed-payload.js";
export { checkUnsigned, isRecord, isUuidText } from "./unsigned-check.js";
export { vconUpdatedAt } from "./updated-at.js";
export { requireVconUuid, vconUuid } from "./uuid.js";
