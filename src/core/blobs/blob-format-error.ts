import { CodedError } from "../../formats/coded-error.js";
/** Why a container could not be read: the structure is broken, or reading it would exceed a limit. */
export type BlobFormatErrorCode =
  | "zip_malformed"
  | "zip_unsupported"
  | "zip_encrypted"
  | "inflate_limit"
  | "inflate_corrupt";

/** A typed failure of the container readers; scanning turns it into a SCANNED_BAD reason or a skip. */
export class BlobFormatError extends CodedError<BlobFormatErrorCode> {
  constructor(
    readonly code: BlobFormatErrorCode,
    message: string,
  ) {
    super(message);
  }
}
