/**
 * The package's library entry: the offline verifier (also `vcon-archivist/verify`) and the
 * error vocabulary (`CodedError`, `ErrorCode`). The typed API client is its own entry,
 * `vcon-archivist/client`. Neither brings the server with it.
 */

export type { ErrorCode } from "./errors/codes.js";
export { CodedError } from "./formats/coded-error.js";
export * from "./verify/index.js";
