/**
 * Every error code of the package, one vocabulary (after jose's `JOSEErrorCode`): each error class
 * derives from `CodedError` (src/formats/coded-error.ts) and its `code` is one of these, so a caller
 * switches on `err.code` rather than on a message. The union is written out, not assembled from the
 * classes, so this module depends on nothing; test/unit/foundation/error-codes.test.ts holds every
 * class's code to it. Some codes never reach a caller as an error: the CLI's exits, the bundle
 * verifier's `BUNDLE_MALFORMED`, the tile reader's `TILE_INVALID` and bencode's `BENCODE` become a
 * command's exit or a verification's failure reason. The conserver plugins add
 * `ConserverPluginErrorCode`.
 */
export type ErrorCode =
  // the API's refusals (src/errors/api-error.ts) and the client's (client/errors.ts)
  | "API_REFUSED"
  | "API_UNAVAILABLE"
  | "INVALID_ARGUMENT"
  | "UNAUTHENTICATED"
  | "QUOTA_EXCEEDED"
  | "PERMISSION_DENIED"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "REQUEST_TIMEOUT"
  | "RATE_LIMITED"
  | "UNAVAILABLE"
  | "INTERNAL"
  // queries and policies (core/filters, core/access)
  | "ODATA_PARSE"
  | "ATTRIBUTE_QUERY"
  | "POLICY_FILTER"
  | "USER_ATTRIBUTE"
  | "ACCESS_POLICY"
  // evidence formats (core/cbor, cose, tlog, scitt, x509, ledger, bundle)
  | "CBOR"
  | "COSE_DECODE"
  | "COSE_ALG"
  | "COSE_VERIFY"
  | "STATEMENT"
  | "NOTE_INVALID"
  | "DER_INVALID"
  | "DID_X509_INVALID"
  | "BENCODE"
  | "TILE_INVALID"
  | "BUNDLE_MALFORMED"
  | "VINDEX"
  | "INDEX_UNAVAILABLE"
  | "INDEX_ROWS_BROKEN"
  | "VRF_INVALID"
  // vCons (core/vcon)
  | "JSON_SYNTAX"
  | "JSON_TOO_DEEP"
  | "VCON_NOT_OBJECT"
  | "VCON_FORM_UNKNOWN"
  | "VCON_INVALID"
  | "VCON_NO_UUID"
  | "VCON_SIGNED_PAYLOAD"
  | "HASH_MODE_UNKNOWN"
  // the verifier's trust policy (verify/verdict/policy.ts) and its look-ups (src/lookup/public-api.ts)
  | "POLICY_INVALID"
  | "LOOKUP_FAILED"
  // blobs and their scanning (core/blobs, workers/clamd.ts)
  | "zip_malformed"
  | "zip_unsupported"
  | "zip_encrypted"
  | "inflate_limit"
  | "inflate_corrupt"
  | "clamd_unreachable"
  | "clamd_timeout"
  | "clamd_error"
  | "clamd_protocol"
  // the service (config.ts, store/drivers/db.ts, store/replication/standby.ts, services/scitt)
  | "CONFIG"
  | "STORAGE"
  | "NOT_A_STANDBY"
  | "REGISTRATION_REFUSED"
  | "REGISTRATION_CLOSED"
  // log periods and their archive (workers/log-period.ts, workers/log-archive.ts)
  | "PERIOD_NOT_CLOSABLE"
  | "ARCHIVE_MISMATCH"
  // a log's shared head moved by another signer of the same database (keys/shared-head.ts)
  | "HEAD_BUSY"
  // blob bytes a store gave that do not hash to their key (store/blobstore/verified-bytes.ts)
  | "BLOB_BYTES_MISMATCH"
  // revocation notices (services/lifecycle/revocation-notices.ts, webhook-address.ts)
  | "NOTICE_NOT_ACKNOWLEDGED"
  | "WEBHOOK_ADDRESS_REFUSED"
  // an erasure a concurrent one left nothing to erase (services/lifecycle/erasure.ts)
  | "ERASURE_NOTHING_LEFT"
  // the CLI's exits
  | "VERIFY_FAILED"
  | "TRUST_ROOT_UNREADABLE"
  | "EXPORT_FAILED"
  | "USAGE"
  | "CONSENT_LOOKUP_FAILED"
  | "PROCESSORS_FAILED";
