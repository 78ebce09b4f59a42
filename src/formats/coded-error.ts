/**
 * The base of every error this package throws: `code` is a stable string a caller can switch on
 * (the vocabulary is the union `ErrorCode`, src/errors.ts), `message` is for people and may change.
 * The name is the class's, so logs and stack traces say which one.
 */
export abstract class CodedError<C extends string = string> extends Error {
  abstract readonly code: C;
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
