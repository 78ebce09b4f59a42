import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeAsciiLeafSha256, nodeSha256 } from "../../../../src/core/node/crypto.js";
import { sha256 } from "../../../../src/formats/crypto/sha256.js";
import { bencode } from "../../../../src/formats/ledger/bencode.js";
import { idTimestampBytes } from "../../../../src/formats/ledger/idtimestamp.js";
import {
  type AssetEventSource,
  assetEventLeafHash,
  assetEventRecord,
} from "../../../../src/formats/record/index.js";
import { assetEventRowLeafHash } from "../../../../src/formats/record/leaf.js";
import { storedEvents } from "../../../../src/store/records/asset-event-writes.js";

/** Bencode as BEP 3 writes it, byte by byte: the reference the encoder's text path is held to. */
function reference(value: unknown): Buffer {
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([Buffer.from(`${bytes.length}:`), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([Buffer.from(`${value.length}:`), value]);
  if (typeof value === "number" || typeof value === "bigint") {
    if (typeof value === "number" && !Number.isSafeInteger(value)) throw new Error("not an integer");
    return Buffer.from(`i${value}e`);
  }
  if (Array.isArray(value))
    return Buffer.concat([Buffer.from("l"), ...value.map(reference), Buffer.from("e")]);
  if (value !== null && typeof value === "object") {
    const map = value as Record<string, unknown>;
    const keys = Object.keys(map)
      .filter((k) => map[k] !== null)
      .sort((a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
    return Buffer.concat([
      Buffer.from("d"),
      ...keys.flatMap((k) => [reference(k), reference(map[k])]),
      Buffer.from("e"),
    ]);
  }
  throw new Error("cannot be bencoded");
}

const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }));
// JSON as attributes hold it, with byte strings, non-integers and nulls among the leaves.
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.maxSafeInteger(),
    fc.bigInt(),
    fc.double(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 8 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
}));

const outcome = <T>(f: () => T): { ok: T } | { error: true } => {
  try {
    return { ok: f() };
  } catch {
    return { error: true };
  }
};

describe("bencode's text path", () => {
  it("writes BEP 3's bytes for any value, and refuses what it cannot carry", () => {
    fc.assert(
      fc.property(value, (v) => {
        const got = outcome(() => Buffer.from(bencode(v)));
        const want = outcome(() => reference(v));
        expect("ok" in got).toBe("ok" in want);
        if ("ok" in got && "ok" in want) expect(got.ok.equals(want.ok)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("sorts keys by their UTF-8 bytes, not UTF-16 units", () => {
    // In UTF-16 "😀" (0xD83D…) comes before "｡" (0xFF61); in UTF-8 0xEF… comes before 0xF0….
    expect(Buffer.from(bencode({ "😀": 1, "｡": 2, a: 3 })).toString()).toBe("d1:ai3e3:｡i2e4:😀i1ee");
  });
});

const uuid = fc.uuid();
const principal = fc.record({ issuer: text, subject: text, display_name: text, email: text });
const time = fc.date({
  min: new Date(-62_167_219_200_000 * 1.01),
  max: new Date(8.64e15),
  noInvalidDate: true,
});
const attributes = fc.dictionary(text, value, { maxKeys: 6 });
const row = fc.record({
  id: uuid,
  asset_id: uuid,
  tenant_id: uuid,
  operation: text,
  behaviour: text,
  event_attributes: attributes,
  asset_attributes: attributes,
  timestamp_declared: time,
  timestamp_accepted: time,
  principal_declared: principal,
  principal_accepted: principal,
  confirmation_status: fc.constantFrom("STORED", "COMMITTED"),
  proof_mechanism: fc.constantFrom("MERKLE_LOG", "SIMPLE_HASH"),
  mmr_index: fc.option(fc.nat(), { nil: null }),
  idtimestamp: fc.constant(null),
  merklelog_entry: fc.constant(null),
  transaction_id: fc.constant(""),
  block_number: fc.constant(0),
  transaction_index: fc.constant(0),
  from_address: text,
  covering_seal: fc.constant(null),
});

describe("an asset event's leaf from its stored row", () => {
  it("is the leaf of the record the row maps to, or the same refusal", () => {
    fc.assert(
      fc.property(row, time, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (r, committed, id) => {
        const source = { ...r, timestamp_committed: null } as AssetEventSource;
        const fromRow = outcome(() => Buffer.from(assetEventRowLeafHash(source, committed, id)));
        const fromRowOnNode = outcome(() =>
          Buffer.from(assetEventRowLeafHash(source, committed, id, nodeSha256, nodeAsciiLeafSha256)),
        );
        const fromRecord = outcome(() =>
          Buffer.from(
            assetEventLeafHash(assetEventRecord({ ...source, timestamp_committed: committed }), id),
          ),
        );
        expect(fromRow).toEqual(fromRecord);
        expect(fromRowOnNode).toEqual(fromRecord);
      }),
      { numRuns: 1500 },
    );
  });

  it("gives a conserver event's known leaf", () => {
    // The row as the write path hands it to the committer (`storedEvents` of what a group inserts).
    const [source] = storedEvents([
      {
        id: "0b0d6d38-3c3a-4d2f-9d3e-2f8f5b1a6c01",
        asset_id: "7f6a1f1e-54c2-4a8e-8c51-0a6c7c3e9b02",
        tenant_id: "5d2c3a9e-1b7f-4e44-a0b3-9c8d7e6f5a03",
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { arc_display_type: "vcon_created", payload: "9f86d081", subject: "vcon://x" },
        asset_attributes: {},
        timestamp_declared: new Date("2026-11-26T12:00:00.000Z"),
        timestamp_accepted: new Date("2026-11-26T12:00:00.000Z"),
        principal_declared: { issuer: "", subject: "", display_name: "", email: "" },
        principal_accepted: { issuer: "https://a/appidp", subject: "c", display_name: "B", email: "" },
        confirmation_status: "STORED",
        proof_mechanism: "MERKLE_LOG",
        public: false,
        from_address: "0x01",
      },
    ]);
    if (!source) throw new Error("no row");
    const at = new Date("2026-11-26T12:00:00.250Z");
    const leaf = assetEventRowLeafHash(source, at, 0x0192abcdef012345n);
    expect(Buffer.from(leaf).toString("hex")).toBe(KNOWN_LEAF);
    const onNode = assetEventRowLeafHash(source, at, 0x0192abcdef012345n, nodeSha256, nodeAsciiLeafSha256);
    expect(Buffer.from(onNode).toString("hex")).toBe(KNOWN_LEAF);
  });
});

// SHA-256(0x00 ‖ the idtimestamp's id ‖ bencode(v3 fields)), written out by a separate Python
// bencoder over the record's JSON (the fields DataTrails' v3 schema names).
const KNOWN_LEAF = "20e8da854b800f0167566481c1889f469caf49dd9deef3c9f074ec65366160ac";

describe("the service's ASCII leaf hasher", () => {
  it("hashes exactly the ASCII texts, as SHA-256 of the leaf's parts, and refuses every other", () => {
    const anyText = fc.oneof(
      fc.string({ unit: "binary", maxLength: 3000 }),
      fc.string({
        unit: fc.constantFrom("a", "é", "\u00ff", "\u0080", "\u{1f600}", "\ud800", "\udc00", "~"),
        maxLength: 40,
      }),
      fc.string({ maxLength: 5000 }),
    );
    fc.assert(
      fc.property(anyText, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (text, id) => {
        const ascii = [...text].every((c) => (c.codePointAt(0) as number) < 0x80);
        const got = nodeAsciiLeafSha256(id, text);
        if (!ascii) expect(got).toBeUndefined();
        else
          expect(Buffer.from(got as Uint8Array)).toEqual(
            Buffer.from(sha256(Uint8Array.of(0), idTimestampBytes(id), new TextEncoder().encode(text))),
          );
      }),
      { numRuns: 800 },
    );
  });
});
