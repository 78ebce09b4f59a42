/** The three serialisations of a vCon (draft-ietf-vcon-vcon-core, "Differentiation of ... forms"). */
export type VconForm = "unsigned" | "signed" | "encrypted";

const UNSIGNED_MARKERS = ["parties", "dialog", "analysis", "attachments"];

/** Which form a parsed JSON object is in, or undefined when it is none of them. */
export function detectForm(o: Record<string, unknown>): VconForm | undefined {
  if ("ciphertext" in o && "recipients" in o) return "encrypted";
  if ("payload" in o && "signatures" in o) return "signed";
  if (UNSIGNED_MARKERS.some((k) => k in o)) return "unsigned";
  return undefined;
}
