/**
 * The most UTF-8 bytes of a statement's issuer and subject, and of the record attributes they
 * become (`subject`, `scitt_issuer`): statements are looked up by these values through B-tree
 * indexes, whose entries hold at most ~2.7 kB, so a longer value failed the write that stored
 * it, and every other write of its group commit with it, as a 500 (issue 55: a statement
 * with a 900 kB issuer). Real issuers are URLs and DIDs, real subjects URIs: well under this.
 * Template 0.3.0's `payload` (a vCon version's hash, indexed by migrations 015 and 030) is held
 * to it too: a 12 kB incompressible payload failed its write as a 500 (issue 60).
 */
const MAX_LOOKUP_VALUE_BYTES = 1024;

const utf8 = new TextEncoder();

/**
 * Why `value` (a claim, or an attribute as the index reads it: text as it is, anything else as
 * its JSON) is too long to be looked up by, or undefined when it is not.
 */
export function lookupValueProblem(what: string, value: unknown): string | undefined {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  // A UTF-16 unit is one to three UTF-8 bytes: most values are known short without encoding
  // them, and a long one is known long without encoding 900 kB.
  if (text === undefined || text.length * 3 <= MAX_LOOKUP_VALUE_BYTES) return undefined;
  if (text.length <= MAX_LOOKUP_VALUE_BYTES && utf8.encode(text).length <= MAX_LOOKUP_VALUE_BYTES)
    return undefined;
  return `${what} is longer than ${MAX_LOOKUP_VALUE_BYTES} bytes (UTF-8), the most accepted`;
}
