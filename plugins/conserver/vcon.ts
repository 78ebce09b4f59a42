/**
 * The plugins' view of the core's vCon parsing and hashing (src/core/vcon): the same functions,
 * except that a failure is a ConserverError with the core's code and message, as the plugins'
 * error handling (webhook answers, dead-letter reasons, logs) expects.
 */
import * as core from "../../src/core/vcon/index.js";
import { parseLossless as parseLosslessOrThrow } from "../../src/formats/vcon/lossless-json.js";
import { conserverErrorOf } from "./errors.js";

export {
  detectForm,
  HASH_MODES,
  type HashMode,
  isHashMode,
  isRecord,
  isUuidText,
  normalizeLegacyFields,
  stringifyLossless,
  toLossless,
  type VconDocument,
  type VconForm,
  vconUpdatedAt,
  vconUuid,
} from "../../src/core/vcon/index.js";
export {
  isLosslessObject,
  JsonNumber,
  type LosslessJson,
  type LosslessObject,
} from "../../src/formats/vcon/lossless-json.js";
export { pythonDumps, pythonFloatRepr, pythonString } from "../../src/formats/vcon/python-dumps.js";

function mapped<A extends unknown[], R>(f: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return f(...args);
    } catch (err) {
      throw conserverErrorOf(err);
    }
  };
}

/** Parses JSON text without losing key order or number lexemes. */
export const parseLossless = mapped(parseLosslessOrThrow);
/** Parses a vCon (bytes or text) of any form. */
export const parseVcon = mapped(core.parseVcon);
/** A vCon document from an already parsed JSON object. */
export const vconFromObject = mapped(core.vconFromObject);
/** The unsigned vCon a JWS vCon carries in its `payload`. */
export const decodeSignedPayload = mapped(core.decodeSignedPayload);
/** Checks the known fields of an unsigned vCon; returns the findings. */
export const checkUnsigned = mapped(core.checkUnsigned);
/** The vCon's uuid, or a VCON_NO_UUID error. */
export const requireVconUuid = mapped(core.requireVconUuid);
/** The bytes a hash mode hashes (the preimage of `payload`). */
export const hashPreimage = mapped(core.hashPreimage);
/** SHA-256 of the vCon under `mode`, lowercase hex (the template's `payload`). */
export const hashVcon = mapped(core.hashVcon);
