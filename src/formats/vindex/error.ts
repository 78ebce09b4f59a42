import { CodedError } from "../coded-error.js";

/** A malformed vindex proof or revision entry, or an argument the index cannot hold (a position not 32 bytes). */
export class VindexError extends CodedError<"VINDEX"> {
  readonly code = "VINDEX";
}
