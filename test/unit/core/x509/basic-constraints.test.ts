import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { basicConstraints } from "../../../../src/core/x509/basic-constraints.js";

const der = (name: string) =>
  new Uint8Array(
    new X509Certificate(readFileSync(new URL(`../../../../fixtures/pki/${name}`, import.meta.url))).raw,
  );

describe("basicConstraints (known answers from the test PKI, as openssl x509 -text prints them)", () => {
  it.each([
    ["ca.pem", { ca: true, pathLen: undefined }],
    ["intermediate.pem", { ca: true, pathLen: 0 }],
    ["limited.pem", { ca: true, pathLen: 0 }],
    ["sub-ca.pem", { ca: true, pathLen: undefined }],
    ["via-intermediate.pem", { ca: false, pathLen: undefined }],
    ["via-sub-ca.pem", { ca: false, pathLen: undefined }],
  ])("%s", (name, expected) => {
    expect(basicConstraints(der(name))).toEqual(expected);
  });

  it("refuses DER it cannot read rather than guessing", () => {
    const whole = der("limited.pem");
    for (const cut of [1, 10, whole.length >> 1, whole.length - 1])
      expect(() => basicConstraints(whole.subarray(0, cut))).toThrow();
    expect(() => basicConstraints(new Uint8Array([0x04, 0x00]))).toThrow();
  });
});
