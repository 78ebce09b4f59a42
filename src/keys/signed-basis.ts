import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { formatVkey } from "../core/log/note-sign.js";
import { ApiError } from "../errors/api-error.js";
import { decodeSeal } from "../formats/cose/seal.js";
import { verifySign1 } from "../formats/cose/sign1.js";
import type { PublicKey } from "../formats/crypto/public-key.js";
import { parseCheckpoint } from "../formats/tlog/checkpoint.js";
import { ED25519 } from "../formats/tlog/keys.js";
import { ML_DSA_44 } from "../formats/tlog/ml-dsa.js";
import { type NoteVerifier, verifyNote } from "../formats/tlog/note.js";
import { verifierFromVkey } from "../formats/tlog/vkey-verifier.js";
import type { SealRow } from "../store/ledger/seals.js";
import { type CheckpointRow, TLOG_KEY, TLOG_ML_DSA_KEY } from "../store/ledger/tlog-checkpoints.js";
import type { KeyEntry } from "./key-directory.js";
import { es256PublicKey } from "./keyring.js";

/** What the service was about to sign when it refused: the label of `archivist_signing_refused_total`. */
export type SigningWhat =
  | "receipt"
  | "receipt_rfc9162"
  | "seal"
  | "checkpoint"
  | "period_close"
  | "tlog_proof"
  | "index_checkpoint";

/** The public halves of the keys the service signs seals and checkpoints with, current and retired. */
export interface SigningKeyHistory {
  history(purpose: string, alg: "ES256" | "Ed25519" | "ML-DSA-44"): Promise<KeyEntry[]>;
  /** Reads the key directory again after another process rotated a key; true when it had. */
  reload?(): Promise<boolean>;
}

// Verified seals and checkpoints kept, by log, size and the hash of their bytes: a seal is
// verified once, then every receipt over it costs a hash of its bytes. Past this many the
// cache starts over.
const VERIFIED_KEPT = 10_000;

const sha = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/**
 * What the service signed before, as the database shows it, checked against the service's own
 * keys: the database is written by whoever can reach it, so a seal's peaks or a checkpoint's root
 * are believed only once their signature verifies with a key the service has signed with, for
 * this very log and size. Everything the service signs follows from those (receipts, the next
 * seal and checkpoint, a period's close); `refuse` is the one way a mismatch ends.
 */
export class SignedBasis {
  /** Refusals by what was refused, since the process started (`/metrics`). */
  readonly refusals = new Map<SigningWhat, number>();
  private readonly seals = new Map<string, Uint8Array[]>();
  private readonly checkpoints = new Map<string, Uint8Array>();
  private sealKeys: { kids: string; keys: PublicKey[] } | undefined;

  constructor(
    private readonly keys: SigningKeyHistory | undefined,
    private readonly log: Logger,
  ) {}

  /**
   * Refuses to sign: logged as an error the operator sees, counted, and the request answered
   * 503 with the reason (never a receipt or a signature over it).
   */
  refuse(what: SigningWhat, tenantId: string, reason: string): ApiError {
    this.refusals.set(what, (this.refusals.get(what) ?? 0) + 1);
    this.log.error(
      { log: `tenant/${tenantId}`, refused: what },
      `refusing to sign (${what}): ${reason}; the database no longer holds what this service signed (a write to it outside the service?)`,
    );
    return new ApiError(
      "unavailable",
      `refusing to sign: the log's stored state does not follow from what this service signed (${what}); the operator has been told`,
    );
  }

  /** A seal this process signed (or verified): kept as verified, so its receipts need no verification. */
  signedSeal(seal: Pick<SealRow, "tenant_id" | "mmr_size" | "seal">, peaks: Uint8Array[]): void {
    this.keep(this.seals, `${seal.tenant_id}:${seal.mmr_size}:${sha(seal.seal)}`, peaks);
  }

  /** A checkpoint this process signed (or verified), by its log, size and note. */
  signedCheckpoint(
    cp: Pick<CheckpointRow, "tenant_id" | "size" | "note">,
    root: Uint8Array,
    log: "tlog" | "vindex" = "tlog",
  ): void {
    this.keep(this.checkpoints, `${cp.tenant_id}:${log}:${cp.size}:${sha(cp.note)}`, root);
  }

  private keep<T>(m: Map<string, T>, key: string, v: T): void {
    if (m.size >= VERIFIED_KEPT) m.clear();
    m.set(key, v);
  }

  /**
   * The peaks a stored seal signs, when its signature verifies with one of the service's seal
   * keys and it is a seal of this log at the row's size; otherwise refused as `what`. The peaks
   * come from the signed bytes, never from the row's `peaks` column.
   */
  async sealPeaks(what: SigningWhat, seal: SealRow): Promise<Uint8Array[]> {
    const key = `${seal.tenant_id}:${seal.mmr_size}:${sha(seal.seal)}`;
    const kept = this.seals.get(key);
    if (kept) return kept;
    const fail = (why: string) =>
      this.refuse(what, seal.tenant_id, `the seal of MMR size ${seal.mmr_size} ${why}`);
    let state: ReturnType<typeof decodeSeal>;
    try {
      state = decodeSeal(seal.seal);
    } catch (err) {
      throw fail(`cannot be read (${(err as Error).message})`);
    }
    if (state.logId !== `tenant/${seal.tenant_id}`) throw fail(`is a seal of ${state.logId || "no log"}`);
    if (state.mmrSize !== seal.mmr_size) throw fail(`signs MMR size ${state.mmrSize}`);
    const verifies = async () =>
      (await this.sealVerifiers()).some((k) => safely(() => verifySign1(seal.seal, k)));
    // A key rotated by another process since this one last read the key directory: read it again, once.
    if (!(await verifies()) && !((await this.keys?.reload?.()) && (await verifies())))
      throw fail("does not verify with any seal key of this service");
    this.keep(this.seals, key, state.peaks);
    return state.peaks;
  }

  /**
   * The root a stored checkpoint signs, when its note verifies with one of the service's log
   * keys, is of this log (its origin names the tenancy's log, or with `vindex` its index's output
   * log) and of the row's size; otherwise refused as `what`.
   */
  async checkpointRoot(
    what: SigningWhat,
    cp: Pick<CheckpointRow, "tenant_id" | "size" | "note">,
    log: "tlog" | "vindex" = "tlog",
  ): Promise<Uint8Array> {
    const key = `${cp.tenant_id}:${log}:${cp.size}:${sha(cp.note)}`;
    const kept = this.checkpoints.get(key);
    if (kept) return kept;
    const fail = (why: string) =>
      this.refuse(
        what,
        cp.tenant_id,
        `the ${log === "tlog" ? "checkpoint" : "index checkpoint"} of ${cp.size} entries ${why}`,
      );
    const origin = cp.note.split("\n", 1)[0] ?? "";
    const verified = async () => {
      try {
        const { text, verified } = verifyNote(cp.note, await this.logVerifiers(origin));
        // Every line of it is the service's: witnesses' cosignatures are kept apart.
        const lines = cp.note
          .slice(cp.note.indexOf("\n\n") + 2)
          .split("\n")
          .filter((l) => l !== "");
        return verified.length === lines.length ? text : undefined;
      } catch {
        return undefined;
      }
    };
    // A key rotated by another process since this one last read the key directory: read it again, once.
    const text = (await verified()) ?? ((await this.keys?.reload?.()) ? await verified() : undefined);
    if (text === undefined) throw fail("does not verify with the log keys of this service");
    const c = safely(() => parseCheckpoint(text));
    if (!c) throw fail("cannot be read");
    if (!c.origin.endsWith(`/merklelogs/${cp.tenant_id}/${log}`))
      throw fail(`is of another log, ${c.origin}`);
    if (c.size !== cp.size) throw fail(`signs ${c.size} entries`);
    this.keep(this.checkpoints, key, c.root);
    return c.root;
  }

  private async sealVerifiers(): Promise<PublicKey[]> {
    const entries = (await this.keys?.history("seal", "ES256")) ?? [];
    const kids = entries.map((e) => e.kid).join(",");
    if (this.sealKeys?.kids !== kids) this.sealKeys = { kids, keys: entries.map(es256PublicKey) };
    return this.sealKeys.keys;
  }

  private async logVerifiers(origin: string): Promise<NoteVerifier[]> {
    const ed25519 = (await this.keys?.history(TLOG_KEY, "Ed25519")) ?? [];
    const mlDsa = (await this.keys?.history(TLOG_ML_DSA_KEY, "ML-DSA-44")) ?? [];
    const vkey = (type: number, field: unknown) =>
      typeof field === "string"
        ? [verifierFromVkey(formatVkey(origin, type, new Uint8Array(Buffer.from(field, "base64url"))))]
        : [];
    return [
      ...ed25519.flatMap((e) => vkey(ED25519, e.public_jwk.x)),
      ...mlDsa.flatMap((e) => vkey(ML_DSA_44, e.public_jwk.pub)),
    ];
  }
}

function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
