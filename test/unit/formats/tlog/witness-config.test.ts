import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../../src/config.js";
import { ed25519PublicKey, formatVkey } from "../../../../src/core/log/note-sign.js";
import { COSIGNATURE_V1, ED25519, parseWitnessList } from "../../../../src/formats/tlog/index.js";

const key = (n: number, type = COSIGNATURE_V1) =>
  formatVkey(`w.example/${n}`, type, ed25519PublicKey(new Uint8Array(32).fill(n)));

describe("ARCHIVIST_WITNESSES and ARCHIVIST_WITNESS_QUORUM", () => {
  it("reads `<vkey> <url>` entries separated by `;` or newlines, the quorum defaulting to all", () => {
    const list = `${key(1)} https://w1.example/\n ${key(2)}   http://127.0.0.1:8090 ;`;
    expect(parseWitnessList(list)).toEqual([
      { name: "w.example/1", vkey: key(1), url: "https://w1.example" },
      { name: "w.example/2", vkey: key(2), url: "http://127.0.0.1:8090" },
    ]);
    const c = loadConfig({}, { ARCHIVIST_WITNESSES: list });
    expect(c.witnesses).toHaveLength(2);
    expect(c.witnessQuorum).toBe(2);
    expect(loadConfig({}, { ARCHIVIST_WITNESSES: list, ARCHIVIST_WITNESS_QUORUM: "1" }).witnessQuorum).toBe(
      1,
    );
    expect(loadConfig({}, {}).witnessQuorum).toBe(0);
  });

  it("refuses log keys, duplicates, URLs that are not http(s) and quorums out of range", () => {
    expect(() => loadConfig({}, { ARCHIVIST_WITNESSES: `${key(1, ED25519)} https://w` })).toThrow(
      /type 0x04/,
    );
    expect(() => loadConfig({}, { ARCHIVIST_WITNESSES: `${key(1)} https://a; ${key(1)} https://b` })).toThrow(
      /listed twice/,
    );
    expect(() => loadConfig({}, { ARCHIVIST_WITNESSES: `${key(1)} ftp://a` })).toThrow(ConfigError);
    expect(() => loadConfig({}, { ARCHIVIST_WITNESSES: key(1) })).toThrow(/<vkey> <url>/);
    expect(() =>
      loadConfig({}, { ARCHIVIST_WITNESSES: `${key(1)} https://a`, ARCHIVIST_WITNESS_QUORUM: "2" }),
    ).toThrow(/up to the 1 witnesses/);
    expect(() =>
      loadConfig({}, { ARCHIVIST_WITNESSES: `${key(1)} https://a`, ARCHIVIST_WITNESS_QUORUM: "0" }),
    ).toThrow(/at least 1/);
  });
});
