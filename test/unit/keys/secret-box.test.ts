import { describe, expect, it } from "vitest";
import { openSecret, sealSecret } from "../../../src/keys/secret-box.js";

const key = new Uint8Array(32).fill(7);
const iv = Buffer.alloc(12, 1);

describe("the secret box", () => {
  it("seals to a fixed form under a fixed key and IV (AES-256-GCM, the row as associated data)", () => {
    expect(sealSecret(key, "whsec_abc", "row-1", iv)).toBe(
      "box1:AQEBAQEBAQEBAQEB:AYn60vPgjWyyk95GSNsrU6k6c2WiHEJzoQ",
    );
  });

  it("is what Web Crypto's AES-GCM opens, with the same associated data", async () => {
    const [, ivText, body] = sealSecret(key, "a processor's secret", "row-2").split(":");
    const k = await crypto.subtle.importKey("raw", key, "AES-GCM", false, ["decrypt"]);
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: Buffer.from(ivText ?? "", "base64url"), additionalData: Buffer.from("row-2") },
      k,
      Buffer.from(body ?? "", "base64url"),
    );
    expect(new TextDecoder().decode(plain)).toBe("a processor's secret");
  });

  it("opens only for its key and its row, and never when altered", () => {
    const sealed = sealSecret(key, "whsec_xyz", "row-3");
    expect(sealed).not.toContain("whsec");
    expect(openSecret(key, sealed, "row-3")).toBe("whsec_xyz");
    // Two seals of one secret differ (a fresh IV each).
    expect(sealSecret(key, "whsec_xyz", "row-3")).not.toBe(sealed);
    expect(() => openSecret(key, sealed, "row-4")).toThrow();
    expect(() => openSecret(new Uint8Array(32).fill(8), sealed, "row-3")).toThrow();
    const [v, i, b = ""] = sealed.split(":");
    const flipped = `${b.slice(0, 2)}${b[2] === "A" ? "B" : "A"}${b.slice(3)}`;
    expect(() => openSecret(key, `${v}:${i}:${flipped}`, "row-3")).toThrow();
    for (const bad of [
      "",
      "whsec_xyz",
      "box1:",
      "box1:AA:AA",
      "box2:AQEBAQEBAQEBAQEB:AYn60vPgjWyyk95GSNsrU6k6c2WiHEJzoQ",
    ])
      expect(() => openSecret(key, bad, "row-3"), bad).toThrow();
  });
});
