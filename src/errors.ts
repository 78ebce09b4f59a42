import type { ApiRefusedError, ApiUnavailableError } from "./client/errors.js";
import type { ConfigError } from "./config.js";
import type { ApiError } from "./core/api/api-error.js";
import type { BlobFormatError } from "./core/blobs/blob-format-error.js";
import type { CborError } from "./core/cbor/error.js";
import type { CoseError } from "./core/cose/sign1.js";
import type { StatementError } from "./core/scitt/statement.js";
import type { NoteError } from "./core/tlog/note.js";
import type { VconError } from "./core/vcon/errors.js";
import type { PolicyError } from "./core/verdict/policy.js";
import type { DerError } from "./core/x509/der.js";
import type { DidX509Error } from "./core/x509/did-x509.js";
import type { RegistrationClosed, RegistrationRefused } from "./services/scitt/scitt.js";
import type { StorageError } from "./store/db.js";
import type { LookupError } from "./web/public-api.js";
import type { ClamdError } from "./workers/clamd.js";
import type { ArchiveError } from "./workers/log-archive.js";
import type { PeriodCloseError } from "./workers/log-period.js";

export { CodedError } from "./core/api/coded-error.js";

/**
 * Every error code of the package, one vocabulary (after jose's `JOSEErrorCode`): each error class
 * derives from `CodedError` and its `code` is one of these, so a caller switches on `err.code`
 * rather than on a message. Unexported error classes (the CLI's `VERIFY_FAILED`,
 * `TRUST_ROOT_UNREADABLE`, `EXPORT_FAILED`, `USAGE`, `CONSENT_LOOKUP_FAILED` and `PROCESSORS_FAILED`, the bundle verifier's `BUNDLE_MALFORMED`, the tile reader's `TILE_INVALID`,
 * bencode's `BENCODE`) never reach a caller as an error: their messages become a command's exit or
 * a verification's failure reason. The conserver plugins add `ConserverPluginErrorCode`.
 */
export type ErrorCode =
  | ApiError["code"]
  | ApiRefusedError["code"]
  | ApiUnavailableError["code"]
  | BlobFormatError["code"]
  | CborError["code"]
  | ClamdError["code"]
  | PeriodCloseError["code"]
  | ArchiveError["code"]
  | CoseError["code"]
  | DerError["code"]
  | DidX509Error["code"]
  | LookupError["code"]
  | NoteError["code"]
  | PolicyError["code"]
  | RegistrationClosed["code"]
  | RegistrationRefused["code"]
  | StatementError["code"]
  | StorageError["code"]
  | VconError["code"]
  | ConfigError["code"]
  | "VERIFY_FAILED"
  | "TRUST_ROOT_UNREADABLE"
  | "EXPORT_FAILED"
  | "USAGE"
  | "CONSENT_LOOKUP_FAILED"
  | "PROCESSORS_FAILED"
  | "BUNDLE_MALFORMED"
  | "TILE_INVALID"
  | "BENCODE";
