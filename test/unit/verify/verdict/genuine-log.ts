import { generateKeyPairSync } from "node:crypto";
import { formatCheckpoint, formatProofExtra, formatTlogProof } from "../../../../src/core/log/tlog-format.js";
import { nodePublicKey, nodeSigner } from "../../../../src/core/node/crypto.js";
import { eventToStatement, registeredEvent } from "../../../../src/core/scitt/index.js";
import type { PublicKey } from "../../../../src/formats/crypto/public-key.js";
import { leafOfRecord } from "../../../../src/formats/record/api-record.js";
import { ED25519 } from "../../../../src/formats/tlog/index.js";
import { inclusionPath, mth, referenceTiles, sha } from "../tlog/reference-tree.js";
import { signedNote, vkeyOf } from "../tlog/test-log.js";

/**
 * A small genuine log of one tenancy, made with the service's own leaf rules and a signed (and
 * optionally cosigned) checkpoint: an asset event, an asset-free event and a registered signed
 * statement among other entries, each with its tlog-proof and the log's tiles. Forgery tests
 * change what a verifier is given and expect it never to say verified.
 */
const TENANT = "6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f";
export const ORIGIN = `log.example/archivist/v1/merklelogs/${TENANT}/tlog`;

/**
 * Two Ed25519 seeds whose keys have the same 4-byte C2SP key id under ORIGIN (a birthday search
 * over 86,294 keys): a signature by one carries the other's (name, key id).
 */
export const COLLIDING_SEEDS = {
  pinned: Buffer.from("143295c98871faa1bac43d3885492b0ab3961fd40771ef89e2dedbaed6083bf6", "hex"),
  forger: Buffer.from("e95e0cb41c559878251b6be9663c77e2ed26b2a138e9d3757de89fcada18e87e", "hex"),
};

const LOG_SEED = new Uint8Array(COLLIDING_SEEDS.pinned);
export const LOG_VKEY = vkeyOf(ORIGIN, ED25519, LOG_SEED);
export const WITNESS = "witness.example/w1";
const WITNESS_SEED = new Uint8Array(32).fill(8);
export const WITNESS_VKEY = vkeyOf(WITNESS, 0x04, WITNESS_SEED);

/** MMR index of each leaf index (leaves 0..7). */
const MMR_INDEX = [0, 1, 3, 4, 7, 8, 10, 11];
const idts = (i: number) => `01918f0c5a2b00${(i + 16).toString(16).padStart(2, "0")}00`;
const commit = (leaf: number) => ({ index: String(MMR_INDEX[leaf]), idtimestamp: idts(leaf) });

export type Rec = Record<string, unknown>;

export const assetEvent = (leaf = 2): Rec => ({
  identity: "assets/0a1b2c3d-1111-4222-8333-444455556666/events/7f6e5d4c-aaaa-4bbb-8ccc-ddddeeeeffff",
  asset_identity: "assets/0a1b2c3d-1111-4222-8333-444455556666",
  event_attributes: { arc_display_type: "vcon_created", amount: "100" },
  asset_attributes: {},
  operation: "Record",
  behaviour: "RecordEvidence",
  timestamp_declared: "2026-11-26T10:00:00Z",
  timestamp_accepted: "2026-11-26T10:00:01Z",
  timestamp_committed: "2026-11-26T10:00:02Z",
  principal_accepted: { issuer: "https://example", subject: "app" },
  principal_declared: { issuer: "", subject: "" },
  tenant_identity: `tenant/${TENANT}`,
  confirmation_status: "CONFIRMED",
  merklelog_entry: { commit: commit(leaf) },
});

export const freeEvent = (leaf = 1): Rec => ({
  identity: "events/0b7e1c2a-3f4d-4e5f-8a9b-1c2d3e4f5a6b",
  origin_tenant: `tenant/${TENANT}`,
  attributes: { arc_display_type: "note", amount: "100" },
  trails: ["subject-1"],
  event_type: "t",
  merklelog_commit: commit(leaf),
});

/** The statement issuer's key (the conserver's, say) and its kid. */
export const ISSUER_KID = "issuer-key-1";
const issuerPair = generateKeyPairSync("ec", { namedCurve: "P-256" });
export const issuerKey: PublicKey = nodePublicKey(issuerPair.publicKey);
const vconAttrs = (subject: string) => ({
  arc_display_type: "vcon_create",
  payload: "ab".repeat(32),
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject,
  timestamp_declared: "2026-11-26T10:00:00Z",
  vcon_operation: "vcon_create",
  vcon_draft_version: "04",
});

/** A hashed signed statement for `subject`, signed by `key` (the issuer's by default) under `kid`. */
export function statementFor(subject: string, key = issuerPair.privateKey, kid = ISSUER_KID): Uint8Array {
  return eventToStatement(vconAttrs(subject), { issuer: "https://conserver.example", kid }, nodeSigner(key));
}

export const STATEMENT = statementFor("vcon://11111111-2222-4333-8444-555566667777");

/** The asset-free event a registered STATEMENT became. */
export const registeredRecord = (leaf = 3): Rec => ({
  identity: "events/5c4b3a29-1818-4777-8666-555544443333",
  origin_tenant: `tenant/${TENANT}`,
  ...registeredEvent(STATEMENT),
  merklelog_commit: commit(leaf),
});

/** Tree leaf data: the MMR leaf of an event, the payload's hash of a registered statement. */
export function genuineEntries(): Uint8Array[] {
  const entries = [0, 1, 2, 3, 4, 5, 6].map((i) => sha(Uint8Array.of(i)));
  entries[1] = leafOfRecord(freeEvent());
  entries[2] = leafOfRecord(assetEvent());
  entries[3] = sha(Buffer.from("ab".repeat(32), "hex"));
  return entries;
}

export interface SignedLog {
  entries: Uint8Array[];
  note: string;
  fetch: ReturnType<typeof referenceTiles>;
  proof(leaf: number, identity: string, statement?: Uint8Array): string;
}

/** The log of `entries`, its checkpoint signed with `seed` and, when `cosignedAt` is given, cosigned by WITNESS. */
export function signedLog(entries = genuineEntries(), seed = LOG_SEED, cosignedAt?: number): SignedLog {
  const text = formatCheckpoint({ origin: ORIGIN, size: entries.length, root: mth(entries), extensions: [] });
  const note =
    cosignedAt === undefined
      ? signedNote(text, ORIGIN, seed)
      : signedNote(text, ORIGIN, seed, [{ name: WITNESS, seed: WITNESS_SEED }], cosignedAt);
  return {
    entries,
    note,
    fetch: referenceTiles(entries),
    proof: (leaf, identity, statement) =>
      formatTlogProof({
        extra: formatProofExtra({ identity, statement }),
        index: leaf,
        path: inclusionPath(leaf, entries),
        checkpoint: note,
      }),
  };
}
