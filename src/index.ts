/**
 * The package's library entry: the offline verifier (also `vcon-archivist/verify`) and the
 * typed API client (also `vcon-archivist/client`). Neither brings the server with it.
 */
export * from "./verify/index.js";
