import { parseLossless } from "../formats/vcon/lossless-json.js";
import { pythonDumps } from "../formats/vcon/python-dumps.js";

/** A serialisation of a vCon whose SHA-256 a recorded `payload` may be. */
export interface VconForm {
  name: string;
  serialise(raw: Uint8Array): Uint8Array;
}

/** The file's bytes as they are: what a link hashes when it keeps the body it received. */
const RAW_FORM: VconForm = { name: "raw", serialise: (raw) => raw };

/**
 * Python json.dumps defaults over the file's key order, as vcon-server's `Vcon.hash` computes it:
 * a vCon the conserver re-serialised still matches. Parsed losslessly so numbers keep their text.
 */
const PYTHON_JSON_FORM: VconForm = {
  name: "python-json",
  serialise: (raw) => new TextEncoder().encode(pythonDumps(parseLossless(new TextDecoder().decode(raw)))),
};

/** The forms a vCon file is tried in, raw first. */
export const VCON_FORMS: readonly VconForm[] = [RAW_FORM, PYTHON_JSON_FORM];
