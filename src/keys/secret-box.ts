import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Secrets the service must keep to use later (a processor's webhook signing secret), stored in the
 * database only as AES-256-GCM ciphertext under a key of the key directory: a dump or a stolen
 * backup of the database alone cannot sign as the service. The row it belongs to is the
 * associated data, so a sealed value copied onto another row does not open there.
 */
const VERSION = "box1";

export function sealSecret(
  key: Uint8Array,
  plaintext: string,
  boundTo: string,
  iv = randomBytes(12),
): string {
  if (key.length !== 32) throw new Error("a secret box key is 32 bytes");
  const c = createCipheriv("aes-256-gcm", key, iv);
  c.setAAD(Buffer.from(boundTo, "utf8"));
  const body = Buffer.concat([c.update(plaintext, "utf8"), c.final(), c.getAuthTag()]);
  return `${VERSION}:${Buffer.from(iv).toString("base64url")}:${body.toString("base64url")}`;
}

/** The plaintext, or an error when the value was not sealed by `key` for `boundTo`. */
export function openSecret(key: Uint8Array, sealed: string, boundTo: string): string {
  const [version, iv, body] = sealed.split(":");
  if (version !== VERSION || !iv || !body) throw new Error("not a sealed secret");
  const bytes = Buffer.from(body, "base64url");
  if (bytes.length < 16) throw new Error("not a sealed secret");
  const d = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  d.setAAD(Buffer.from(boundTo, "utf8"));
  d.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([d.update(bytes.subarray(0, bytes.length - 16)), d.final()]).toString("utf8");
}
