import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { ed25519PublicKey, ed25519Signer, formatVkey, signNote } from "../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../src/core/log/tlog-format.js";
import { leafOfRecord } from "../../../src/formats/record/api-record.js";
import { ED25519, tilePath, tilesOf } from "../../../src/formats/tlog/index.js";
import { emptyPolicy, parsePolicy } from "../../../src/verify/verdict/policy.js";
import { verifyRecordInLog } from "../../../src/verify/verdict/record-in-log.js";
import { noTrust } from "../../../src/verify/verdict/trust.js";
import { runCli } from "../../helpers/cli-output.js";
import { mth, referenceTiles, sha } from "../verify/tlog/reference-tree.js";

const TENANT = "6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f";
const ORIGIN = `log.example/archivist/v1/merklelogs/${TENANT}/tlog`;
const genuineSeed = new Uint8Array(32).fill(1);
const forgerSeed = new Uint8Array(32).fill(9);
const genuineKey = formatVkey(ORIGIN, ED25519, ed25519PublicKey(genuineSeed));
const forgerKey = formatVkey(ORIGIN, ED25519, ed25519PublicKey(forgerSeed));

const record = {
  identity: "events/0b7e1c2a-3f4d-4e5f-8a9b-1c2d3e4f5a6b",
  origin_tenant: `tenant/${TENANT}`,
  attributes: { arc_display_type: "vcon_created", amount: "100" },
  trails: [],
  event_type: "",
  merklelog_commit: { index: "4", idtimestamp: "01918f0c5a2b000100" },
};
const tampered = { ...record, attributes: { ...record.attributes, amount: "1000000" } };

/** A log of six leaves, leaf 3 (MMR index 4) being `r`, its checkpoint signed with `seed` under the genuine origin. */
function log(r: Record<string, unknown>, seed: Uint8Array) {
  const entries = [0, 1, 2, 3, 4, 5].map((i) => sha(Uint8Array.of(i)));
  entries[3] = leafOfRecord(r);
  const note = signNote(formatCheckpoint({ origin: ORIGIN, size: 6, root: mth(entries), extensions: [] }), [
    ed25519Signer(ORIGIN, seed),
  ]);
  return { note, fetch: referenceTiles(entries) };
}

/** The same log as a mirror directory: its own key, the checkpoint, the tiles. */
async function mirrorDir(l: ReturnType<typeof log>, key: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "forged-mirror-"));
  for (const t of tilesOf(6)) {
    mkdirSync(dirname(join(dir, tilePath(t))), { recursive: true });
    writeFileSync(join(dir, tilePath(t)), await l.fetch(t));
  }
  writeFileSync(join(dir, "key"), `${key}\n`);
  writeFileSync(join(dir, "checkpoint"), l.note);
  return dir;
}

const pinned = (...lines: string[]) => ({
  policy: parsePolicy(lines.join("\n")),
  described: ["test policy"],
});

describe("a forged mirror: its own key under the genuine origin, a tree holding a tampered record", () => {
  const forged = log(tampered, forgerSeed);
  const genuine = log(record, genuineSeed);

  it("is never verified without a trust root, and refused with one (library)", async () => {
    const bare = await verifyRecordInLog(tampered, forged.note, forgerKey, noTrust(), forged.fetch);
    expect(bare).toMatchObject({
      code: "self-consistent-unpinned",
      ok: false,
      exit_code: 2,
      trust: { level: "unpinned" },
    });
    expect(bare.trust.fingerprints).toEqual([
      { kind: "log-key", id: ORIGIN, fingerprint: forgerKey, pinned: false },
    ]);
    const withKey = await verifyRecordInLog(
      tampered,
      forged.note,
      forgerKey,
      pinned(`log ${genuineKey}`),
      forged.fetch,
    );
    expect(withKey).toMatchObject({ code: "policy-failed", exit_code: 3 });
    expect(withKey.problems[0]).toMatch(/not signed by a log key you pinned/);
    // The genuine record in the genuine log verifies under the pinned key.
    const ok = await verifyRecordInLog(
      record,
      genuine.note,
      genuineKey,
      pinned(`log ${genuineKey}`),
      genuine.fetch,
    );
    expect(ok).toMatchObject({
      code: "verified",
      ok: true,
      trust: { level: "pinned" },
      leaf_index: 3,
      size: 6,
    });
    // The genuine record is not in the forged tree.
    const missing = await verifyRecordInLog(
      record,
      forged.note,
      forgerKey,
      { policy: emptyPolicy(), described: [] },
      forged.fetch,
    );
    expect(missing).toMatchObject({ code: "tampered", exit_code: 1 });
  });

  it("is never verified without a trust root, and refused with one (CLI, a mirror directory)", async () => {
    const dir = await mirrorDir(forged, forgerKey);
    writeFileSync(join(dir, "record.json"), JSON.stringify(tampered));
    writeFileSync(join(dir, "genuine.vkey"), genuineKey);
    const run = (args: string[]) =>
      runCli((a) => verifyCommand.run(a), [join(dir, "record.json"), "--mirror", dir, ...args]);
    const bare = await run([]);
    expect(bare.code, bare.out).toBe(2);
    expect(bare.out).toMatch(/^SELF-CONSISTENT, KEYS NOT PINNED: /m);
    expect(bare.out).toContain(`key log-key ${ORIGIN}: ${forgerKey}`);
    const withKey = await run(["--log-key", join(dir, "genuine.vkey")]);
    expect(withKey.code, withKey.out).toBe(3);
    const json = JSON.parse((await run(["--log-key", join(dir, "genuine.vkey"), "--json"])).out);
    expect(json).toMatchObject({ code: "policy-failed", ok: false });
  });
});

describe("a forged mirror whose key collides with the pinned key's 4-byte key id (issue 55)", () => {
  // Two keys with one key id under ORIGIN, from a birthday search over 86,294 keys.
  const colliding = {
    pinned: new Uint8Array(
      Buffer.from("143295c98871faa1bac43d3885492b0ab3961fd40771ef89e2dedbaed6083bf6", "hex"),
    ),
    forger: new Uint8Array(
      Buffer.from("e95e0cb41c559878251b6be9663c77e2ed26b2a138e9d3757de89fcada18e87e", "hex"),
    ),
  };
  const pinnedKey = formatVkey(ORIGIN, ED25519, ed25519PublicKey(colliding.pinned));
  const collidingKey = formatVkey(ORIGIN, ED25519, ed25519PublicKey(colliding.forger));
  const forged = log(tampered, colliding.forger);

  it("has the same (name, key id) and is never counted as the pinned key's signature", async () => {
    expect(collidingKey.split("+").slice(0, 2)).toEqual(pinnedKey.split("+").slice(0, 2));
    for (const trust of [pinned(`log ${pinnedKey}`)]) {
      const v = await verifyRecordInLog(tampered, forged.note, collidingKey, trust, forged.fetch);
      expect(v.ok, v.summary).toBe(false);
      expect(v.code).toBe("tampered");
    }
    const dir = await mirrorDir(forged, collidingKey);
    writeFileSync(join(dir, "record.json"), JSON.stringify(tampered));
    writeFileSync(join(dir, "pinned.vkey"), pinnedKey);
    writeFileSync(join(dir, "policy.txt"), `log ${pinnedKey}\n`);
    for (const flags of [
      ["--log-key", join(dir, "pinned.vkey")],
      ["--policy", join(dir, "policy.txt")],
    ]) {
      const out = await runCli(
        (a) => verifyCommand.run(a),
        [join(dir, "record.json"), "--mirror", dir, ...flags],
      );
      expect(out.code, out.out).toBe(1);
    }
  });
});
