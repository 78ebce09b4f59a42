import { describe, expect, it } from "vitest";
import { indexKeys } from "../../../../src/formats/vindex/map.js";

const UUID = "0190b6c4-9f2e-7c3a-8b1d-2a4e6f8a0c1e";
const ASSET = "5E0B2A7C-1D3F-4A5B-8C6D-7E8F9A0B1C2D";

// vindex/v1's map function (docs/complete-trails.md, "The map function"): the keys a record is
// filed under, sorted, each once. A verifier reimplements it, so its answers are pinned here.
describe("the map function's keys", () => {
  it("files an asset event under its asset, in lower case, and its vCon subject in its one spelling", () => {
    expect(indexKeys({ kind: "asset-event", asset: ASSET, subject: `VCON://${UUID.toUpperCase()}` })).toEqual(
      [`assets/${ASSET.toLowerCase()}`, `vcon://${UUID}`],
    );
  });

  it("files an asset event's subject only when it names a vCon, and never its issuer", () => {
    expect(
      indexKeys({ kind: "asset-event", asset: ASSET, subject: "urn:other", issuer: "did:web:x" }),
    ).toEqual([`assets/${ASSET.toLowerCase()}`]);
    expect(indexKeys({ kind: "asset-event", subject: `vcon://${UUID}` })).toEqual([`vcon://${UUID}`]);
    expect(indexKeys({ kind: "asset-event" })).toEqual([]);
  });

  it("files a registered statement under its issuer (even an empty one) and its subject, sorted", () => {
    expect(
      indexKeys({ kind: "asset-free-event", issuer: "did:web:issuer.example", subject: "urn:s" }),
    ).toEqual(["issuer:did:web:issuer.example", "subject:urn:s"]);
    expect(indexKeys({ kind: "asset-free-event", issuer: "", subject: "" })).toEqual(["issuer:"]);
    expect(
      indexKeys({ kind: "asset-free-event", issuer: "z", subject: `vcon://${UUID.toUpperCase()}` }),
    ).toEqual(["issuer:z", `subject:vcon://${UUID}`, `vcon://${UUID}`]);
  });

  it("files an asset-free event that is no statement under its vCon subject alone", () => {
    expect(indexKeys({ kind: "asset-free-event", asset: ASSET, subject: `vcon://${UUID}` })).toEqual([
      `vcon://${UUID}`,
    ]);
    expect(indexKeys({ kind: "asset-free-event", subject: "urn:s" })).toEqual([]);
  });
});
