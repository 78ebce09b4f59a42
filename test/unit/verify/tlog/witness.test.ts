import { describe, expect, it } from "vitest";
import { ed25519PublicKey, ed25519Signer, signNote } from "../../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import { consistencyProof } from "../../../../src/core/log/tree-proof.js";
import {
  formatAddCheckpoint,
  judgeAddCheckpoint,
  parseAddCheckpoint,
  type WitnessedState,
} from "../../../../src/core/log/witness.js";
import { EMPTY_ROOT, ed25519Verifier, treeRoot } from "../../../../src/formats/tlog/index.js";
import { mth, perfect, sha } from "./reference-tree.js";

const ORIGIN = "log.example/t1";
const seed = new Uint8Array(32).fill(9);
const signer = ed25519Signer(ORIGIN, seed);
const keys = (o: string) => (o === ORIGIN ? [ed25519Verifier(ORIGIN, ed25519PublicKey(seed))] : undefined);

function request(ls: Uint8Array[], old: number, origin = ORIGIN, sign = signer) {
  const get = perfect(ls);
  const text = formatCheckpoint({ origin, size: ls.length, root: treeRoot(ls.length, get), extensions: [] });
  return formatAddCheckpoint({
    oldSize: old,
    proof: old > 0 && old < ls.length ? consistencyProof(old, ls.length, get) : [],
    note: signNote(text, [sign]),
  });
}

describe("add-checkpoint (c2sp.org/tlog-witness)", () => {
  const log = Array.from({ length: 20 }, (_, i) => sha(Uint8Array.of(i)));
  const fork = log.map((l, i) => (i === 3 ? sha(Uint8Array.of(99)) : l));
  const state = new Map<string, WitnessedState>();
  const latest = (o: string) => state.get(o);
  const judge = (body: string) => {
    const v = judgeAddCheckpoint(body, keys, latest);
    if (v.status === 200)
      state.set(v.checkpoint.origin, { size: v.checkpoint.size, root: v.checkpoint.root });
    return v;
  };

  it("round-trips the request body", () => {
    const body = request(log.slice(0, 9), 5);
    const r = parseAddCheckpoint(body);
    expect(r.oldSize).toBe(5);
    expect(formatAddCheckpoint(r)).toBe(body);
  });

  it("cosigns a first checkpoint from 0, then one consistent with it", () => {
    expect(judge(request(log.slice(0, 7), 0)).status).toBe(200);
    expect(judge(request(log.slice(0, 20), 7)).status).toBe(200);
    expect(state.get(ORIGIN)?.size).toBe(20);
  });

  it("answers 409 with its size to a stale old size, and 422 to a fork at its size", () => {
    expect(judge(request(log.slice(0, 20), 7))).toEqual({ status: 409, size: 20 });
    const forked = judge(request(fork, 20));
    expect(forked.status).toBe(422);
    expect(state.get(ORIGIN)?.root).toEqual(mth(log));
  });

  it("refuses a larger fork whose proof cannot verify against what it cosigned", () => {
    const bigger = [...fork, sha(Uint8Array.of(100))];
    // The forking log can only prove consistency with its own history.
    expect(judge(request(bigger, 20)).status).toBe(422);
  });

  it("answers 404 to an unknown origin, 403 to a bad signature, 400 to nonsense", () => {
    expect(judge(request(log.slice(0, 3), 0, "other.example/log")).status).toBe(404);
    expect(
      judge(request(log.slice(0, 21), 20, ORIGIN, ed25519Signer(ORIGIN, new Uint8Array(32)))).status,
    ).toBe(403);
    expect(judge("old x\n\nfoo\n").status).toBe(400);
    expect(judge(request(log.slice(0, 3), 5)).status).toBe(400);
  });

  it("wants the empty tree's root at size 0", () => {
    const body = formatAddCheckpoint({
      oldSize: 0,
      proof: [],
      note: signNote(
        formatCheckpoint({ origin: ORIGIN, size: 0, root: sha(Uint8Array.of(1)), extensions: [] }),
        [signer],
      ),
    });
    const fresh = judgeAddCheckpoint(body, keys, () => undefined);
    expect(fresh.status).toBe(422);
    expect(EMPTY_ROOT).toEqual(sha());
  });
});
