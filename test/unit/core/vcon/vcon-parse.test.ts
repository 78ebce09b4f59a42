import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parseVcon, requireVconUuid, vconFromObject, vconUuid } from "../../../../src/core/vcon/index.js";
import { VconError } from "../../../../src/formats/vcon/errors.js";
import { errorCode } from "../../../helpers/error-code.js";

const code = (f: () => unknown) => errorCode(VconError, f);

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64url");

describe("parseVcon", () => {
  it("accepts unknown fields anywhere and keeps them", () => {
    const doc = parseVcon('{"uuid":"u-1","parties":[{"tel":"+1","x-extra":{"a":1}}],"vendor_field":[1,2]}');
    expect(doc.form).toBe("unsigned");
    expect(doc.value.vendor_field).toEqual([1, 2]);
    expect(doc.issues).toEqual(["created_at is missing"]);
  });

  it("treats empty redacted/group of the email example as not redacted", () => {
    const doc = parseVcon(
      '{"uuid":"u","parties":[],"redacted":{},"group":[],"created_at":"2024-01-01T00:00:00Z"}',
    );
    expect(doc.redacted).toBe(false);
    expect(doc.issues).toEqual([]);
  });

  it("reads the legacy `appended` name as amended", () => {
    expect(parseVcon('{"uuid":"u","dialog":[],"appended":{"uuid":"p"}}').amended).toBe(true);
  });

  it("decodes a gzip-compressed signed payload", () => {
    const payload = b64(
      gzipSync(JSON.stringify({ uuid: "g-1", parties: [], updated_at: "2024-02-02T00:00:00Z" })),
    );
    const doc = parseVcon(JSON.stringify({ payload, signatures: [{ header: { uuid: "other" } }] }));
    expect(doc.form).toBe("signed");
    expect(vconUuid(doc)).toBe("g-1");
  });

  it("falls back to the signature header uuid when the payload has none", () => {
    const doc = parseVcon(
      JSON.stringify({ payload: b64('{"parties":[]}'), signatures: [{ header: { uuid: "h-1" } }] }),
    );
    expect(vconUuid(doc)).toBe("h-1");
  });

  it("parses objects given in code", () => {
    expect(vconUuid(vconFromObject({ uuid: "o-1", dialog: [] }))).toBe("o-1");
    expect(code(() => vconFromObject([1]))).toBe("VCON_NOT_OBJECT");
  });

  it.each([
    ["[]", "VCON_NOT_OBJECT"],
    ['"text"', "VCON_NOT_OBJECT"],
    ['{"hello":"world"}', "VCON_FORM_UNKNOWN"],
    ['{"uuid":7,"parties":[]}', "VCON_INVALID"],
    ['{"uuid":"has space","parties":[]}', "VCON_INVALID"],
    ['{"uuid":"u","parties":{}}', "VCON_INVALID"],
    ['{"payload":"!!","signatures":[]}', "VCON_SIGNED_PAYLOAD"],
    [`{"payload":"${b64("not json")}","signatures":[]}`, "VCON_SIGNED_PAYLOAD"],
    [`{"payload":"${b64("[1]")}","signatures":[]}`, "VCON_SIGNED_PAYLOAD"],
    ['{"uuid":"u","parties":[]', "JSON_SYNTAX"],
  ])("refuses %s with %s", (text, want) => {
    expect(code(() => parseVcon(text))).toBe(want);
  });

  it("refuses invalid UTF-8 bytes", () => {
    expect(code(() => parseVcon(new Uint8Array([0x7b, 0xff, 0x7d])))).toBe("JSON_SYNTAX");
  });

  it("requires a uuid only when one is needed", () => {
    const doc = parseVcon('{"parties":[]}');
    expect(doc.issues).toContain("uuid is missing");
    expect(code(() => requireVconUuid(doc))).toBe("VCON_NO_UUID");
    const enc = parseVcon('{"ciphertext":"x","recipients":[],"unprotected":{}}');
    expect(enc.issues).toEqual(["unprotected.uuid is missing"]);
    expect(vconUuid(enc)).toBeUndefined();
  });
});
