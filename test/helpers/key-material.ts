import { createPrivateKey } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** One way a private key's bytes could appear in a dump, a log or an answer. */
export interface Needle {
  /** Which key and which form, for the failure message (never the bytes themselves). */
  label: string;
  bytes: Buffer;
}

const forms = (label: string, raw: Buffer): Needle[] => [
  { label: `${label} (raw)`, bytes: raw },
  { label: `${label} (hex)`, bytes: Buffer.from(raw.toString("hex")) },
  { label: `${label} (HEX)`, bytes: Buffer.from(raw.toString("hex").toUpperCase()) },
  { label: `${label} (base64)`, bytes: Buffer.from(raw.toString("base64").replace(/=+$/, "")) },
  { label: `${label} (base64url)`, bytes: Buffer.from(raw.toString("base64url")) },
];

/**
 * Every private key and secret the key directory holds as a file, in every form a store could
 * keep it: PEM markers and body lines, PKCS#8 DER raw and in hex and base64, each private JWK
 * member (d, p, q, dp, dq, qi) raw, hex, base64 and base64url, and each seed or secret likewise.
 */
export function keyDirectoryNeedles(keyDir: string): Needle[] {
  const needles: Needle[] = [{ label: "a PEM private key marker", bytes: Buffer.from("PRIVATE KEY-----") }];
  for (const purpose of readdirSync(keyDir)) {
    const dir = join(keyDir, purpose);
    if (!statSync(dir).isDirectory()) continue;
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8");
      const label = `${purpose}/${file}`;
      if (file.endsWith(".pem")) {
        const key = createPrivateKey(text);
        const der = key.export({ format: "der", type: "pkcs8" });
        needles.push(...forms(`${label} PKCS#8`, der));
        for (const line of text.split("\n"))
          if (line.length >= 40 && !line.startsWith("-----"))
            needles.push({ label: `${label} PEM line`, bytes: Buffer.from(line) });
        const jwk = key.export({ format: "jwk" }) as Record<string, unknown>;
        for (const m of ["d", "p", "q", "dp", "dq", "qi"])
          if (typeof jwk[m] === "string")
            needles.push(...forms(`${label} ${m}`, Buffer.from(jwk[m], "base64url")));
      } else if (file.endsWith(".secret")) {
        needles.push(...forms(label, Buffer.from(text.trim(), "base64")));
      }
    }
  }
  return needles;
}

/** The needles found in `haystack` (their labels). */
export function found(haystack: Buffer, needles: Needle[]): string[] {
  return needles.filter((n) => haystack.includes(n.bytes)).map((n) => n.label);
}

/** Every file under `dir`, with its bytes. */
export function* filesUnder(dir: string): Generator<{ path: string; bytes: Buffer }> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) yield* filesUnder(path);
    else if (st.isFile()) yield { path, bytes: readFileSync(path) };
  }
}
