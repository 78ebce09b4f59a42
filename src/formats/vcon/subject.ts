/**
 * How a vCon is named as a record's `subject`: `vcon://<uuid>`. A uuid is the same in either
 * case (RFC 9562), so `vcon://<UPPER>` names the same vCon as `vcon://<lower>`; the service
 * writes the lower-case spelling, and every comparison reads both as one, since a subject
 * compared as text let a revocation spelled in upper case escape the consent derivation, the
 * erasure and the evidence bundle (issue 60).
 */

const VCON_SUBJECT = /^vcon:\/\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The one spelling itself: tested first, as the service writes it (no match array, no new string). */
const CANONICAL_SUBJECT = /^vcon:\/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A vCon subject in its one spelling (`vcon://<lower-case uuid>`); any other value unchanged. */
export function canonicalSubject(value: string): string {
  return vconSubjectOf(value) ?? value;
}

/** The vCon `value` names, in its one spelling; undefined when it names none. */
export function vconSubjectOf(value: string): string | undefined {
  if (CANONICAL_SUBJECT.test(value)) return value;
  const m = VCON_SUBJECT.exec(value);
  return m ? `vcon://${(m[1] as string).toLowerCase()}` : undefined;
}

/** Whether `value` names a vCon (`vcon://<uuid>`, in any case). */
export function isVconSubject(value: string): boolean {
  return VCON_SUBJECT.test(value);
}

/** Whether two subjects name the same thing (vCon subjects in any case). */
export function sameSubject(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string" && canonicalSubject(a) === canonicalSubject(b);
}

/**
 * The spellings a stored record may give a vCon subject: the canonical one and, for records
 * written before subjects were made canonical, the uuid in upper case and the scheme in either
 * case. A subject mixing cases within the uuid is found only by its own spelling (but an asset's,
 * which the store finds by its lower case: `addSubjectFilter` in store/records/attribute-sql.ts).
 */
export function subjectSpellings(value: string): string[] {
  const m = VCON_SUBJECT.exec(value);
  if (!m) return [value];
  const lower = (m[1] as string).toLowerCase();
  const upper = lower.toUpperCase();
  return [...new Set([`vcon://${lower}`, `vcon://${upper}`, `VCON://${lower}`, `VCON://${upper}`, value])];
}
