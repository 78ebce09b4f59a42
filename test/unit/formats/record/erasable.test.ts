import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  commit,
  commitmentDigest,
  commitmentOf,
  erasableStandings,
  erasedWords,
} from "../../../../src/formats/record/erasable.js";

const salt = new Uint8Array(32).map((_, i) => i);
const saltB64 = Buffer.from(salt).toString("base64");

describe("erasable attributes: a salted-hash commitment in the record, the value beside it", () => {
  it("commits SHA-256(domain ‖ salt ‖ UTF-8 value), the domain ending in a zero byte", () => {
    const expected = createHash("sha256")
      .update(Buffer.from("vcon-archivist/erasable-attribute/v1\0"))
      .update(salt)
      .update(Buffer.from("+1 555 0100", "utf8"))
      .digest("hex");
    expect(commitmentDigest("+1 555 0100", salt)).toBe(expected);
    expect(commit("+1 555 0100", salt)).toEqual({ salted_sha256: expected });
    // Known answer, so a change of the scheme is a visible change.
    expect(commitmentDigest("Alice", new Uint8Array(32))).toBe(
      createHash("sha256")
        .update("vcon-archivist/erasable-attribute/v1\0")
        .update(new Uint8Array(32))
        .update("Alice")
        .digest("hex"),
    );
    expect(() => commit("x", new Uint8Array(16))).toThrow(/32 bytes/);
  });

  it("reads a commitment only in its exact form", () => {
    const c = "ab".repeat(32);
    expect(commitmentOf({ salted_sha256: c })).toBe(c);
    for (const v of [
      c,
      { salted_sha256: c, more: 1 },
      { salted_sha256: "AB".repeat(32) },
      { salted_sha256: "ab" },
      [c],
      null,
    ])
      expect(commitmentOf(v), JSON.stringify(v)).toBeUndefined();
  });

  it("says how each committed attribute stands: disclosed and matching, erased by whom, withheld, or a mismatch", () => {
    const tel = commit("+1 555 0100", salt);
    const name = commit("Alice", salt);
    const email = commit("a@example.com", salt);
    const record = {
      identity: "assets/a/events/e",
      event_attributes: { party_tel: tel, party_name: name, party_email: email, plain: "kept" },
      asset_attributes: {},
      erasable: {
        event_attributes: {
          party_tel: { disclosed: { value: "+1 555 0100", salt: saltB64 } },
          party_name: {
            erased: {
              by: "DPO (app-1)",
              at: "2026-02-01T00:00:00.000Z",
              basis: "GDPR Art. 17",
              record: "assets/a/events/x",
            },
          },
        },
      },
    };
    const s = erasableStandings(record);
    expect(s.map((x) => [x.name, x.state])).toEqual([
      ["party_tel", "disclosed"],
      ["party_name", "erased"],
      ["party_email", "withheld"],
    ]);
    const erased = s[1];
    if (erased?.state !== "erased") throw new Error("not erased");
    expect(erasedWords(erased)).toBe(
      "event_attributes.party_name erased by DPO (app-1) at 2026-02-01T00:00:00.000Z under GDPR Art. 17 (erasure record assets/a/events/x)",
    );
    // A disclosure that does not hash to the commitment, a malformed one, one for a plain attribute.
    const forged = structuredClone(record);
    forged.erasable.event_attributes.party_tel = { disclosed: { value: "+1 555 0199", salt: saltB64 } };
    (forged.erasable.event_attributes as Record<string, unknown>).plain = {
      disclosed: { value: "kept", salt: saltB64 },
    };
    (forged.erasable.event_attributes as Record<string, unknown>).party_email = {
      disclosed: { value: "a", salt: "!" },
    };
    expect(
      erasableStandings(forged)
        .filter((x) => x.state === "mismatch")
        .map((x) => (x.state === "mismatch" ? x.reason : "")),
    ).toEqual([
      "event_attributes.party_tel: the disclosed value does not hash to the record's commitment",
      "event_attributes.party_email: its disclosure is malformed",
      "event_attributes.plain: a disclosure for an attribute the record does not commit",
    ]);
    expect(erasableStandings({ identity: "x", event_attributes: { a: "b" } })).toEqual([]);
  });
});
