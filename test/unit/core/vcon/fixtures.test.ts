import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  hashVcon,
  parseVcon,
  type VconForm,
  vconUpdatedAt,
  vconUuid,
} from "../../../../src/core/vcon/index.js";
import { fixtureJson, fixturePath } from "../../../helpers/fixtures.js";

interface Vector {
  sha256_file_bytes: string;
  sha256_python_json_dumps_default: string;
  sha256_js_json_stringify: string;
  sha256_vcon_server_after_read_normalization: string;
}
const vectors = fixtureJson<{ vectors: Record<string, Vector> }>("vcon/hash-vectors.json").vectors;
const read = (name: string) => parseVcon(new Uint8Array(readFileSync(fixturePath(`vcon/${name}`))));

const EXPECTED: Record<string, { form: VconForm; uuid: string; updatedAt?: string; traits?: string[] }> = {
  "ietf-core03-ab_call_ext_rec.vcon.json": { form: "unsigned", uuid: "019f15a6-a752-826f-b9a2-279e0d16bc46" },
  "ietf-core03-ab_call_ext_rec_amended.vcon.json": {
    form: "unsigned",
    uuid: "019f15a6-aa72-8dbd-a20f-d188127fad29",
    traits: ["amended"],
  },
  "ietf-core03-ab_call_ext_rec_encrypted.vcon.json": {
    form: "encrypted",
    uuid: "019f15a6-a752-826f-b9a2-279e0d16bc46",
  },
  "ietf-core03-ab_call_ext_rec_redacted.vcon.json": {
    form: "unsigned",
    uuid: "01928e10-193e-8231-b9a2-279e0d16bc46",
    traits: ["redacted"],
  },
  "ietf-core03-ab_call_ext_rec_signed.vcon.json": {
    form: "signed",
    uuid: "019f15a6-a752-826f-b9a2-279e0d16bc46",
  },
  "ietf-core03-ab_email_prob_followup_text_thread.vcon.json": {
    form: "unsigned",
    uuid: "019f15a6-ba37-8ed3-b9a2-279e0d16bc46",
    updatedAt: "2026-06-29T23:11:16.017+00:00",
  },
  "vcon-js-interop-inline-recording.vcon.json": {
    form: "unsigned",
    uuid: "42f69ca7-2a14-4e5e-8814-bc1695f9fe24",
    updatedAt: "2025-04-24T14:51:20.369Z",
  },
  "vcon-js-legacy-0.0.1-text-chat.vcon.json": {
    form: "unsigned",
    uuid: "0195b79c-2882-8f07-9dd8-dd37220d739c",
    updatedAt: "2025-03-16T16:43:49-04:00",
    traits: ["legacy"],
  },
  "vcon-server-legacy-0.0.1-recording-analysis.vcon.json": {
    form: "unsigned",
    uuid: "0193db2c-2bf7-88a3-9dd8-dd37220d739c",
    updatedAt: "2024-12-18T19:08:45.431621+00:00",
    traits: ["legacy"],
  },
};

describe("vCon fixtures", () => {
  it("covers every fixture with a hash vector", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(vectors).sort());
  });

  describe.each(Object.entries(vectors))("%s", (name, v) => {
    const doc = read(name);
    const want = EXPECTED[name];

    it("hashes: raw = file bytes, python-json = Python json.dumps, normalized = vcon-server after read", () => {
      expect(hashVcon(doc, "raw")).toBe(v.sha256_file_bytes);
      expect(hashVcon(doc, "python-json")).toBe(v.sha256_python_json_dumps_default);
      expect(hashVcon(doc, "python-json-normalized")).toBe(v.sha256_vcon_server_after_read_normalization);
      expect(hashVcon(doc, "jcs")).toMatch(/^[0-9a-f]{64}$/);
    });

    it("detects the form, uuid, update time and traits", () => {
      expect(doc.form).toBe(want?.form);
      expect(vconUuid(doc)).toBe(want?.uuid);
      expect(vconUpdatedAt(doc)).toBe(want?.updatedAt);
      const traits = (["redacted", "amended", "legacy"] as const).filter((t) => doc[t]);
      expect(traits).toEqual(want?.traits ?? []);
    });
  });

  it("decodes the signed form's payload to the same vCon as the unsigned file", () => {
    const signed = read("ietf-core03-ab_call_ext_rec_signed.vcon.json");
    const plain = read("ietf-core03-ab_call_ext_rec.vcon.json");
    expect(signed.unsigned).toEqual(plain.value);
  });

  it("reports what the IETF examples lack without refusing them", () => {
    expect(read("ietf-core03-ab_call_ext_rec.vcon.json").issues).toContain("created_at is missing");
    expect(read("ietf-core03-ab_call_ext_rec_encrypted.vcon.json").unsigned).toBeUndefined();
  });

  it("JCS hashing ignores key order and whitespace", () => {
    const a = parseVcon('{"uuid":"u1","parties":[],"n":1.0}');
    const b = parseVcon('{ "n": 1, "parties": [ ], "uuid": "u1" }');
    expect(hashVcon(a, "jcs")).toBe(hashVcon(b, "jcs"));
    expect(hashVcon(a, "python-json")).not.toBe(hashVcon(b, "python-json"));
  });
});
