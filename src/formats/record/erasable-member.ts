/**
 * A record's `erasable` member: beside the record (outside its leaf), each committed attribute's
 * value and salt, or who erased them. Its own file, without imports: the record mappers carry it,
 * and `erasable.ts`, which checks it, reads records of every kind.
 */

/** The attribute maps of a record that may hold commitments. */
export const ERASABLE_MAPS = ["event_attributes", "asset_attributes", "attributes"] as const;
export type ErasableMap = (typeof ERASABLE_MAPS)[number];

/** A value and its salt, as the record discloses them beside the commitment (unsigned). */
interface Disclosure {
  value: string;
  /** The salt, base64. */
  salt: string;
}

/** What the service says of an erased value (unsigned; the erasure is a record of its own). */
export interface Erased {
  /** Who asked for the erasure, as the service authenticated them. */
  by: string;
  at: string;
  /** The legal basis the requester gave. */
  basis: string;
  /** The erasure's own record in the log (`vcon_attributes_erased`), which has its receipt. */
  record: string;
}

/** A record's `erasable` member: per attribute map, per attribute, its disclosure or its erasure. */
export type ErasableMember = Partial<
  Record<ErasableMap, Record<string, { disclosed: Disclosure } | { erased: Erased }>>
>;

/**
 * The member as far as the record shows its attributes: a caller who may not see an asset
 * attribute (a projection) is not shown its value either. The member itself when every entry is
 * shown (nearly always); undefined when none is.
 */
export function shownErasable(
  member: ErasableMember,
  record: Partial<Record<ErasableMap, Record<string, unknown>>>,
): ErasableMember | undefined {
  if (ERASABLE_MAPS.every((map) => allShown(member[map], record[map]))) return member;
  const shown: ErasableMember = {};
  for (const map of ERASABLE_MAPS) {
    const attrs = record[map];
    const entries = Object.entries(member[map] ?? {}).filter(([name]) => attrs && Object.hasOwn(attrs, name));
    if (entries.length) shown[map] = Object.fromEntries(entries);
  }
  return Object.keys(shown).length ? shown : undefined;
}

function allShown(entries: object | undefined, attrs: Record<string, unknown> | undefined): boolean {
  if (!entries) return true;
  for (const name of Object.keys(entries)) if (!attrs || !Object.hasOwn(attrs, name)) return false;
  return true;
}
