import type { Logger } from "pino";
import { signatureLine } from "../core/log/note-sign.js";
import { consistencyProof } from "../core/log/tree-proof.js";
import { formatAddCheckpoint } from "../core/log/witness.js";
import { cosignatureTime } from "../formats/tlog/cosignature.js";
import { NoteError, type NoteVerifier, verifyNote } from "../formats/tlog/note.js";
import { verifierFromVkey } from "../formats/tlog/vkey-verifier.js";
import type { WitnessEntry } from "../formats/tlog/witness-list.js";
import { readBoundedText } from "../net/bounded-body.js";
import { fetchWithin, timeLimit } from "../net/time-limit.js";
import { withTreeNodes } from "../store/archive/period-archive.js";
import type { BlobStore } from "../store/blobstore/blob-store.js";
import type { Queryable } from "../store/drivers/db.js";
import {
  type CheckpointRow,
  checkpointsToWitness,
  cosignaturesOf,
  insertCosignature,
  markWitnessed,
  setWitnessSize,
  type WitnessedLog,
  witnessSize,
} from "../store/ledger/tlog-checkpoints.js";
import { indexCheckpointsToWitness } from "../store/ledger/vindex.js";
import { outputConsistency } from "../vindex/output-log.js";

const TIMEOUT_MS = 10_000;
/**
 * The most of a witness's answer read: a cosignature line is about 100 bytes, a 409's size
 * fewer, an error's reason a line. A witness that answers more is not one (the rest is cut).
 */
const MAX_ANSWER_BYTES = 8 * 1024;
/**
 * How far ahead of our clock a cosignature's own time may be: clocks drift, but a witness that
 * dates its cosignatures hours or millennia ahead is broken, and what it signed is not kept (its
 * time is shown to everyone reading the log's witnesses).
 */
const MAX_AHEAD_S = 3600;

interface Witness extends WitnessEntry {
  verifier: NoteVerifier;
}

/** A checkpoint to submit: of a tenancy's log or of its index's output log, each witnessed apart. */
interface Submission {
  log: WitnessedLog;
  tenant_id: string;
  size: number;
  note: string;
  /** The consistency proof from the size a witness last cosigned. */
  proof(old: number): Promise<Uint8Array[]>;
}

/**
 * Submits each tenancy's newest checkpoint to every configured witness that has not cosigned it
 * (C2SP tlog-witness add-checkpoint, with a consistency proof from the size the witness last
 * cosigned), keeps the cosignatures, and marks the checkpoint and the seals it covers witnessed
 * once a quorum has cosigned. A witness that answers 409 tells us its size: the next try proves
 * consistency from there.
 */
export class Witnessing {
  private readonly witnesses: Witness[];

  constructor(
    private readonly db: Queryable,
    entries: readonly WitnessEntry[],
    private readonly quorum: number,
    private readonly log: Logger,
    /** Where a closed period's nodes went (a witness far behind needs them for its consistency proof). */
    private readonly blobs: BlobStore,
  ) {
    this.witnesses = entries.map((w) => ({ ...w, verifier: verifierFromVkey(w.vkey) }));
  }

  async runOnce(): Promise<void> {
    const names = this.witnesses.map((w) => w.name);
    for (const cp of await checkpointsToWitness(this.db, names)) {
      await this.witness(this.ofLog(cp));
      const cosigned = (await cosignaturesOf(this.db, cp.tenant_id, cp.size)).filter((c) =>
        this.witnesses.some((w) => w.name === c.witness),
      );
      if (cosigned.length >= this.quorum && !cp.witnessed)
        await markWitnessed(this.db, cp.tenant_id, cp.size, cp.mmr_size);
    }
    // The index's output log goes to the same witnesses, under its own origin (docs/complete-trails.md).
    for (const cp of await indexCheckpointsToWitness(this.db, names))
      await this.witness({
        log: "vindex",
        ...cp,
        proof: (old) => outputConsistency(this.db, cp.tenant_id, old, cp.size),
      });
  }

  private ofLog(cp: CheckpointRow): Submission {
    return {
      log: "tlog",
      ...cp,
      proof: (old) =>
        withTreeNodes({ db: this.db, blobs: this.blobs }, cp.tenant_id, (get) =>
          consistencyProof(old, cp.size, get),
        ),
    };
  }

  private async witness(cp: Submission): Promise<void> {
    const have = new Set(
      (await cosignaturesOf(this.db, cp.tenant_id, cp.size, cp.log)).map((c) => c.witness),
    );
    await Promise.all(
      this.witnesses
        .filter((w) => !have.has(w.name))
        .map((w) =>
          this.submit(cp, w).catch((err: unknown) => {
            this.log.warn(
              { err, witness: w.name, tenant: cp.tenant_id, size: cp.size, log: cp.log },
              "witness submission failed",
            );
          }),
        ),
    );
  }

  private async submit(cp: Submission, w: Witness): Promise<void> {
    let old = await witnessSize(this.db, cp.tenant_id, w.name, cp.log);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (old > cp.size) {
        this.log.error(
          { witness: w.name, tenant: cp.tenant_id, witnessSize: old, size: cp.size },
          "a witness has cosigned a larger tree of this log than the service's newest checkpoint",
        );
        return;
      }
      const proof = old > 0 && old < cp.size ? await cp.proof(old) : [];
      const { status, body } = await askWitness(
        w.url,
        w.name,
        formatAddCheckpoint({ oldSize: old, proof, note: cp.note }),
      );
      if (status === 409) {
        const size = /^(0|[1-9][0-9]*)\n?$/.exec(body);
        if (!size) throw new NoteError(`409 without a size: ${body.slice(0, 80)}`);
        old = Number(size[1]);
        await setWitnessSize(this.db, cp.tenant_id, w.name, old, cp.log);
        continue;
      }
      if (status !== 200) throw new Error(`${w.name} answered ${status}: ${body.slice(0, 200)}`);
      // The answer's lines appended to the checkpoint form a note the witness's key must verify.
      const { verified } = verifyNote(`${cp.note}${body}`, [w.verifier]);
      const sig = verified[0];
      if (!sig) throw new NoteError(`${w.name} returned no cosignature of its own`);
      const time = cosignatureTime(sig.signature) ?? 0;
      if (time > Date.now() / 1000 + MAX_AHEAD_S)
        throw new NoteError(`${w.name} dated its cosignature ${time}, ahead of our clock: not kept`);
      await insertCosignature(
        this.db,
        cp.tenant_id,
        cp.size,
        { witness: w.name, signature_line: signatureLine(sig), timestamp_s: time },
        cp.log,
      );
      return;
    }
  }
}

/** One add-checkpoint request, its answer read within TIMEOUT_MS and MAX_ANSWER_BYTES. */
async function askWitness(
  url: string,
  name: string,
  body: string,
): Promise<{ status: number; body: string }> {
  const limit = timeLimit(TIMEOUT_MS);
  try {
    const res = await fetchWithin(
      fetch,
      `${url}/add-checkpoint`,
      {
        method: "POST",
        headers: { "content-type": "text/plain; charset=utf-8" },
        body,
        // The checkpoint goes to the witness configured, never on to where a 3xx points: that
        // is a failure of this witness.
        redirect: "manual" as const,
      },
      limit,
    );
    return {
      status: res.status,
      body: await readBoundedText(res, MAX_ANSWER_BYTES, `${name}'s answer`, limit.signal),
    };
  } finally {
    limit.clear();
  }
}
