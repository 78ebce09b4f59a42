// src/formats, the floor both sides stand on: the wire formats (CBOR, COSE_Sign1, MMR and RFC 9162
// proofs, C2SP notes, tiles, checkpoints and tlog-proof files, the record model and its leaf rules,
// vCon JSON, SCITT statements), read and, where the verifier needs it, checked as math. Pure and
// browser-safe: it imports nothing of ours and only @noble; no `node:`, no HTTP status, no service,
// no verdict. A format refuses its input with its own coded error (this base class), never an HTTP
// error: the HTTP edge (src/http/errors.ts) decides the status.
/**
 * The base of every error this package throws: `code` is a stable string a caller can switch on
 * (the vocabulary is the union `ErrorCode`, src/errors/codes.ts), `message` is for people and may change.
 * The name is the class's, so logs and stack traces say which one.
 */
export abstract class CodedError<C extends string = string> extends Error {
  abstract readonly code: C;
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
