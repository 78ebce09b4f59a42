import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nativeVindexOutput } from "../../../src/core/node/vrf.js";
import { positionOf, vrfInput } from "../../../src/formats/vindex/map.js";
import { hashedOutput, verifiedPosition } from "../../../src/formats/vindex/position.js";
import { IndexPositions } from "../../../src/vindex/positions.js";

const log = `tenant/${randomUUID()}`;

describe("the service's index positions", () => {
  const positions = new IndexPositions(nativeVindexOutput(new Uint8Array(randomBytes(32))));

  it("place a hashed key where the formats' definition does, its text encoded natively (non-ASCII too)", () => {
    for (const key of [`vcon://${randomUUID()}`, `assets/${randomUUID()}`, "vcon://ünïcödé-not-a-uuid"]) {
      const want = positionOf(hashedOutput(vrfInput(log, key)));
      const got = positions.of(log, key);
      expect(got.position).toEqual(want.position);
      expect(got.salt).toEqual(want.salt);
      expect(verifiedPosition(log, key, null, positions.publicKey)).toEqual(want);
    }
  });

  it("place a key longer than the hashing buffer as well, and the short keys after it", () => {
    // Each key once: a position is kept once computed, and these must be computed here.
    for (const key of [
      `vcon://${"x".repeat(3000)}`,
      `vcon://${randomUUID()}`,
      `vcon://${"ü".repeat(700)}`,
      `assets/${randomUUID()}`,
    ])
      expect(positions.of(log, key).position).toEqual(positionOf(hashedOutput(vrfInput(log, key))).position);
  });

  it("place a key of free text by the VRF, checked by its proof", () => {
    const key = "issuer:did:web:example.com";
    const p = positions.of(log, key);
    const proof = positions.prove(log, key);
    expect(verifiedPosition(log, key, proof, positions.publicKey)).toEqual({
      position: p.position,
      salt: p.salt,
    });
  });
});
