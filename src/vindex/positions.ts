import { hash } from "node:crypto";
import type { NativeVindexOutput } from "../core/node/vrf.js";
import { positionOf, vrfInput, vrfInputText } from "../formats/vindex/map.js";
import { HASHED_TAG, isHashedKey } from "../formats/vindex/position.js";

/** Where a hashed key's SHA-512 input is laid out: the tag, then its VRF input's UTF-8. */
const hashedInput = Buffer.allocUnsafe(1024);
hashedInput.set(HASHED_TAG);

/**
 * `hashedOutput` (src/formats/vindex/position.ts) on node:crypto, the text encoded by the runtime
 * straight after the tag: its encoder, the join and the digest's copy were most of a new key's
 * cost under the conserver's load (one-shot, as a hash object fed part by part cost twice as much).
 */
function nodeHashedOutput(log: string, key: string): Uint8Array {
  const text = vrfInputText(log, key);
  // A key longer than the shared buffer holds gets one of its own, which goes with it: the shared
  // one never grows to the longest key a caller has sent.
  const room = HASHED_TAG.length + 3 * text.length;
  const into = room > hashedInput.length ? Buffer.allocUnsafe(room) : hashedInput;
  if (into !== hashedInput) into.set(HASHED_TAG);
  const length = HASHED_TAG.length + into.write(text, HASHED_TAG.length, "utf8");
  const d = hash("sha512", into.subarray(0, length), "buffer");
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

// Past this many kept positions the memo starts over (~200 bytes each), and past this many proofs (~150).
const KEPT = 200_000;
const PROOFS_KEPT = 50_000;

/** Where a key of a log sits in its index and the salt of its value, from the VRF output. */
export interface KeyPosition {
  position: Uint8Array;
  salt: Uint8Array;
}

/**
 * The index's positions, from the service's VRF key (kept in the key directory, never the
 * database: `Keyring.vrfSecret`). A position is a VRF output, so one who does not hold the key
 * cannot tell which key a position is, or test a guessed key (a phone number) against the
 * index; one given the proof of its own key can check that position was not chosen by us.
 * The output is vindex/v1's (`vindexOutputFromProof`: SHA-512 over u(8·Gamma)), computed with one
 * native X25519 (~0.15 ms, where the RFC's beta in JavaScript took ~1.3 ms), and kept once computed.
 */
export class IndexPositions {
  /** Each log's keys' positions: per log, so a look-up builds no string of its own. */
  readonly #kept = new Map<string, Map<string, KeyPosition>>();
  #keptCount = 0;
  readonly #proofs = new Map<string, Uint8Array>();

  constructor(private readonly vrf: NativeVindexOutput) {}

  /** The VRF public key verifiers check positions with. */
  get publicKey(): Uint8Array {
    return this.vrf.publicKey;
  }

  of(log: string, key: string): KeyPosition {
    let ofLog = this.#kept.get(log);
    const kept = ofLog?.get(key);
    if (kept) return kept;
    const { position, salt } = positionOf(
      isHashedKey(key) ? nodeHashedOutput(log, key) : this.vrf.output(vrfInput(log, key)),
    );
    const p: KeyPosition = { position, salt };
    if (this.#keptCount >= KEPT) {
      this.#kept.clear();
      this.#keptCount = 0;
      ofLog = undefined;
    }
    if (!ofLog) {
      ofLog = new Map();
      this.#kept.set(log, ofLog);
    }
    ofLog.set(key, p);
    this.#keptCount++;
    return p;
  }

  /** The VRF proof of a key's position (80 bytes, RFC 9381); null for a hashed key, which needs none. */
  prove(log: string, key: string): Uint8Array | null {
    if (isHashedKey(key)) return null;
    // A proof costs ~2.5 ms of constant-time JavaScript: a key looked up again (a bundle's export
    // after its listing, an auditor's next visit) takes the one made before.
    const k = `${log}\n${key}`;
    const kept = this.#proofs.get(k);
    if (kept) return kept;
    const pi = this.vrf.prove(vrfInput(log, key));
    if (this.#proofs.size >= PROOFS_KEPT) this.#proofs.clear();
    this.#proofs.set(k, pi);
    return pi;
  }
}
