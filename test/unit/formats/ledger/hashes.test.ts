import { describe, expect, it } from "vitest";
import { formatIdTimestamp, IdTimestampGenerator } from "../../../../src/core/log/idtimestamp.js";
import {
  bencode,
  idTimestampToMillis,
  parseIdTimestamp,
  simpleHashAnchor,
  trieKey,
} from "../../../../src/formats/ledger/index.js";
import {
  assetEventLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  type HashedAssetEvent,
} from "../../../../src/formats/record/index.js";
import { fixtureJson } from "../../../helpers/fixtures.js";

interface Vectors {
  simplehash: {
    events_permissioned: HashedAssetEvent[];
    events_public: HashedAssetEvent[];
    expected: Array<{ scheme: string; events: string; anchor: string }>;
  };
  merklelog_v0_asset_events: {
    cases: Array<{
      name: string;
      event: HashedAssetEvent & { merklelog_entry: { commit: { idtimestamp: string } } };
      leaf: string;
    }>;
  };
  merklelog_v1_asset_free_events: {
    cases: Array<{
      name: string;
      event: {
        identity: string;
        attributes: Record<string, unknown>;
        trails: string[];
        origin_tenant: string;
        merklelog_commit: { idtimestamp: string };
      };
      extraBytes: string;
      leaf: string;
      serializedJson?: string;
    }>;
  };
  trie_keys: { cases: Array<{ logId: string; appId: string; trieKey: string }> };
  idtimestamps: { cases: Array<{ hex: string; epoch: number; unixMs: number; iso: string }> };
}

const v = fixtureJson<Vectors>("vectors/datatrails-event-hashes.json");
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("DataTrails-compatible hashing (known answers)", () => {
  it("computes every simple-hash v1/v2/v3 anchor", () => {
    expect(v.simplehash.expected.length).toBeGreaterThanOrEqual(4);
    const select = (name: string): HashedAssetEvent[] => {
      const one = /^events_permissioned\[(\d)\] only$/.exec(name);
      if (one) return [v.simplehash.events_permissioned[Number(one[1])] as HashedAssetEvent];
      if (name.startsWith("[]")) return [];
      return name === "events_public" ? v.simplehash.events_public : v.simplehash.events_permissioned;
    };
    for (const x of v.simplehash.expected) {
      const events = select(x.events);
      const version = (x.scheme === "any" ? 3 : Number(x.scheme.replace("v", ""))) as 1 | 2 | 3;
      expect(simpleHashAnchor(events, version), `${x.scheme} ${x.events}`).toBe(x.anchor);
    }
  });

  it("computes every asset event leaf (log v0), and a tampered event gives another leaf", () => {
    for (const c of v.merklelog_v0_asset_events.cases) {
      const { id } = parseIdTimestamp(c.event.merklelog_entry.commit.idtimestamp);
      expect(hex(assetEventLeafHash(c.event, id)), c.name).toBe(c.leaf);
    }
    const [good, tampered] = v.merklelog_v0_asset_events.cases;
    expect(good?.leaf).not.toBe(tampered?.leaf);
  });

  it("computes every asset-free event leaf (log v1) with its extra bytes", () => {
    for (const c of v.merklelog_v1_asset_free_events.cases) {
      const { id } = parseIdTimestamp(c.event.merklelog_commit.idtimestamp);
      const extra = assetFreeExtraBytes(c.event.origin_tenant.replace("tenant/", ""));
      expect(hex(extra)).toBe(c.extraBytes);
      expect(hex(assetFreeEventLeafHash(c.event, id, extra)), c.name).toBe(c.leaf);
    }
  });

  it("computes trie keys", () => {
    for (const c of v.trie_keys.cases) expect(hex(trieKey(c.logId, c.appId))).toBe(c.trieKey);
  });

  it("parses and formats idtimestamps", () => {
    for (const c of v.idtimestamps.cases) {
      const { id, epoch } = parseIdTimestamp(c.hex);
      expect(epoch).toBe(c.epoch);
      expect(idTimestampToMillis(id, epoch)).toBe(c.unixMs);
      if (c.hex.length === 18) expect(formatIdTimestamp(id, epoch)).toBe(c.hex);
    }
    expect(() => parseIdTimestamp("nothex")).toThrow(RangeError);
  });

  it("generates strictly increasing ids, even within one millisecond and when the clock steps back", () => {
    let now = 1_763_800_000_000;
    const gen = new IdTimestampGenerator(7, () => now);
    let last = 0n;
    for (let i = 0; i < 70_000; i++) {
      if (i === 50_000) now -= 5_000;
      const id = gen.next();
      expect(id > last).toBe(true);
      last = id;
    }
    expect(Math.abs(idTimestampToMillis(new IdTimestampGenerator(1, () => now).next()) - now)).toBe(0);
  });

  it("bencodes by the rules and refuses what it cannot carry", () => {
    expect(Buffer.from(bencode({ b: "x", a: [1, "yz"] })).toString()).toBe("d1:ali1e2:yze1:b1:xe");
    expect(Buffer.from(bencode({ a: null, b: "x" })).toString()).toBe("d1:b1:xe");
    expect(Buffer.from(bencode({ a: { c: null } })).toString()).toBe("d1:adee");
    expect(() => bencode({ a: [null] })).toThrow(/cannot be bencoded/);
    expect(() => bencode({ a: 1.5 })).toThrow(/cannot be bencoded/);
  });

  it("names where the value it cannot carry sits, in the encoding's key order", () => {
    expect(() => bencode({ b: { c: [1, true] } })).toThrow("b.c[1] cannot be bencoded (boolean)");
    expect(() => bencode({ z: 1.5, a: [null] })).toThrow("a[0] cannot be bencoded (null)");
    expect(() => bencode(undefined)).toThrow("value cannot be bencoded (undefined)");
  });
});
