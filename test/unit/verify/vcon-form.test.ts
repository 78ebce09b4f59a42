import { describe, expect, it } from "vitest";
import { looksLikeVcon } from "../../../src/lookup/vcon.js";

const UUID = "018f2a3e-0000-7000-8000-000000000042";
const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const b64url = (s: string) => Buffer.from(s).toString("base64url");

describe("a vCon recognised by its form", () => {
  it.each([
    ["with its version", { vcon: "0.0.1", uuid: UUID }],
    ["by parties and dialog, without a version", { uuid: UUID, parties: [{ tel: "+1" }], dialog: [] }],
    [
      "signed (JWS, the uuid in the payload)",
      {
        payload: b64url(JSON.stringify({ uuid: UUID, parties: [] })),
        signatures: [{ protected: "e30", signature: "AA" }],
      },
    ],
    [
      "signed (JWS, the uuid in a signature header)",
      { payload: "e30", signatures: [{ header: { uuid: UUID }, signature: "AA" }] },
    ],
    [
      "encrypted (JWE)",
      { unprotected: { uuid: UUID, cty: "application/vcon+json" }, ciphertext: "AA", recipients: [] },
    ],
  ])("%s", (_form, v) => {
    expect(looksLikeVcon(json(v))).toBe(true);
  });

  it.each([
    ["a document", new TextEncoder().encode("policy text, version 2")],
    ["JSON without a uuid", json({ parties: [], dialog: [] })],
    ["JSON with a uuid only", json({ uuid: UUID })],
    ["a JWS of something else", json({ payload: b64url("{}"), signatures: [] })],
  ])("not %s", (_what, bytes) => {
    expect(looksLikeVcon(bytes)).toBe(false);
  });
});
