import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keyFingerprint } from "../../../../src/verify/verdict/fingerprint.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";

describe("key fingerprints", () => {
  it("are the SHA-256 of the key's SPKI DER, as openssl prints it", () => {
    for (let i = 0; i < 5; i++) {
      const { publicKey, objects } = es256KeyPair();
      const der = objects.publicKey.export({ type: "spki", format: "der" });
      expect(keyFingerprint(publicKey)).toBe(`sha256:${createHash("sha256").update(der).digest("hex")}`);
    }
  });
});
