/**
 * A record's fields as data: the one description from which the mapper's type, the hashed field
 * lists and the HTTP schemas (and so the OpenAPI documents) all follow. It names kinds, not zod
 * types, so the core and the verifier's browser bundle stay free of the validation library.
 */

/** A principal as records show it. */
export interface RecordPrincipal {
  issuer: string;
  subject: string;
  display_name: string;
  email: string;
}

/** The value each kind of field holds. */
interface FieldTypes {
  string: string;
  number: number;
  boolean: boolean;
  strings: string[];
  attributes: Record<string, unknown>;
  principal: RecordPrincipal;
  unknown: unknown;
}

export type FieldKind = keyof FieldTypes;

/** Field name → kind, in the order the API writes them. */
export type RecordFields = Readonly<Record<string, FieldKind>>;

/** The record type a description stands for. */
export type RecordOf<F extends RecordFields> = { -readonly [K in keyof F]: FieldTypes[F[K]] };
