import { describe, expect, it } from "vitest";
import { canonicalQuery, signS3Request } from "../../../src/store/blobstore/sigv4.js";

// AWS's published examples for header-based SigV4 on S3
// (docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html), with its example keys.
const keys = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "us-east-1",
  now: new Date("2013-05-24T00:00:00Z"),
};
const signatureOf = (h: Record<string, string>) =>
  /Signature=([0-9a-f]{64})$/.exec(h.authorization ?? "")?.[1];

describe("signS3Request (AWS's published examples)", () => {
  it("GET object with a Range header", () => {
    const h = signS3Request({
      ...keys,
      method: "GET",
      url: new URL("https://examplebucket.s3.amazonaws.com/test.txt"),
      payload: new Uint8Array(),
      headers: { Range: "bytes=0-9" },
    });
    expect(h.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
  });

  it.each([
    [
      "bucket lifecycle (a query parameter without a value)",
      "?lifecycle",
      "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
    ],
    [
      "bucket listing (parameters sorted by name)",
      "?max-keys=2&prefix=J",
      "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
    ],
  ])("GET %s", (_name, query, signature) => {
    const url = new URL(`https://examplebucket.s3.amazonaws.com/${query}`);
    expect(signatureOf(signS3Request({ ...keys, method: "GET", url, payload: new Uint8Array() }))).toBe(
      signature,
    );
  });

  it("escapes query characters outside RFC 3986's unreserved set, as AWS canonicalises them", () => {
    expect(canonicalQuery(new URL("https://b.example/?prefix=a(b)*c!'~-_.&a=x y"))).toBe(
      "a=x%20y&prefix=a%28b%29%2Ac%21%27~-_.",
    );
  });
});
