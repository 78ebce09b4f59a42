import { describe, expect, it } from "vitest";
import { certificateFields } from "../../../../src/core/x509/certificate-fields.js";
import { DidX509Error, didX509Names, parseDidX509 } from "../../../../src/core/x509/did-x509.js";
import { pkiDer } from "../../../helpers/pki.js";

const FP = "wagu214icvQaQ9BukzBXnMcDAmcn-LtVQk85NaoyJIA";

describe("certificate fields", () => {
  it("reads what openssl shows of the named leaf", () => {
    // openssl x509 -noout -subject -ext subjectAltName,extendedKeyUsage,keyUsage (README).
    expect(certificateFields(pkiDer("named.pem"))).toEqual({
      subject: [
        ["2.5.4.6", "US"],
        ["2.5.4.10", "Example Org"],
        ["2.5.4.3", "Bob Example"],
      ],
      subjectAltNames: [
        ["email", "bob@example.com"],
        ["dns", "vendor.example"],
        ["uri", "https://vendor.example/issuer"],
      ],
      extendedKeyUsage: ["1.3.6.1.5.5.7.3.3"],
      digitalSignature: true,
      basicConstraints: { ca: false, pathLen: undefined },
      critical: ["2.5.29.15"],
    });
  });

  it("reads key usage without digitalSignature, critical extensions and a plain leaf", () => {
    expect(certificateFields(pkiDer("no-sign.pem")).digitalSignature).toBe(false);
    expect(certificateFields(pkiDer("unknown-critical.pem")).critical).toEqual(["1.3.6.1.4.1.55555.1"]);
    const plain = certificateFields(pkiDer("issuer.pem"));
    expect(plain.subject).toEqual([["2.5.4.3", "conserver.example"]]);
    expect(plain.subjectAltNames).toBeUndefined();
    expect(plain.digitalSignature).toBe(true);
  });

  it("refuses DER it cannot read", () => {
    const der = pkiDer("named.pem");
    expect(() => certificateFields(der.subarray(0, der.length - 10))).toThrow(/truncated/);
    expect(() => certificateFields(new Uint8Array([0x30, 0x00]))).toThrow(/not a certificate/);
  });
});

describe("did:x509 identifiers", () => {
  it("parse into a fingerprint and predicates", () => {
    expect(parseDidX509(`did:x509:0:sha256:${FP}::subject:C:US:O:Example%20Org::eku:1.2.3`)).toEqual({
      alg: "sha256",
      fingerprint: FP,
      predicates: [
        { name: "subject", value: "C:US:O:Example%20Org" },
        { name: "eku", value: "1.2.3" },
      ],
    });
  });

  it.each([
    ["did:web:example.com", /not a did:x509/],
    [`did:x509:1:sha256:${FP}::subject:CN:a`, /version/],
    [`did:x509:0:md5:${FP}::subject:CN:a`, /algorithm/],
    [`did:x509:0:sha256:${FP}:x::subject:CN:a`, /algorithm/],
    ["did:x509:0:sha256:not+base64::subject:CN:a", /base64url/],
    [`did:x509:0:sha256:${FP}`, /at least one predicate/],
    [`did:x509:0:sha256:${FP}::issuer:CN:a`, /unknown did:x509 predicate/],
    [`did:x509:0:sha256:${FP}::subject:CN:a/b`, /malformed subject/],
    [`did:x509:0:sha256:${FP}::subject:CN:a#0`, /malformed subject/],
    [`did:x509:0:sha256:${FP}::san:`, /malformed san/],
  ])("refuse %s", (did, message) => {
    expect(() => parseDidX509(did)).toThrow(DidX509Error);
    expect(() => parseDidX509(did)).toThrow(message);
  });

  it("explain why they do not name a chain", () => {
    const chain = [pkiDer("named.pem"), pkiDer("ca.pem")];
    const names = (rest: string) => didX509Names(`did:x509:0:sha256:${FP}::${rest}`, chain);
    expect(names("subject:CN:Bob%20Example")).toEqual({ ok: true });
    expect(names("subject:CN")).toEqual({
      ok: false,
      reason: "did:x509 issuer: the subject predicate needs key:value pairs",
    });
    expect(names("subject:CN:a:CN:b").ok).toBe(false);
    expect(names("subject:XX:a")).toMatchObject({
      reason: expect.stringMatching(/unknown subject attribute/),
    });
    expect(names("subject:CN:%E0%A4%A")).toMatchObject({ ok: false });
    expect(names("subject:CN:%FF")).toMatchObject({ reason: expect.stringMatching(/percent-encoded/) });
    expect(names("san:ip:1.2.3.4")).toMatchObject({ reason: expect.stringMatching(/email\|dns\|uri/) });
    expect(names("eku:codeSigning")).toMatchObject({ reason: expect.stringMatching(/dotted OID/) });
    expect(didX509Names(`did:x509:0:sha256:${FP}::subject:CN:Bob%20Example`, [pkiDer("named.pem")])).toEqual({
      ok: false,
      reason: "a did:x509 issuer needs a CA certificate in the path",
    });
  });
});
