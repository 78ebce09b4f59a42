/*
 * The verifiable index's trie (src/formats/vindex): a build from empty, a batch of changes after
 * it (the trie hashes its nodes in place, the same everywhere), proofs and their verification,
 * each with node:crypto's SHA-256 (what the service passes) and with the portable one (the
 * default, what a browser has). The brief's targets: N = 200,000
 * built and its root in < 3 s, 1,000 sets and the root after in < 100 ms, a proof in < 1 ms.
 * Each time is the wall clock's and this process's CPU time: on a machine other work shares, the
 * second is the one to compare.
 *
 *   npx tsx bench/vindex-speed.ts [N]
 */
import { randomBytes } from "node:crypto";
import { nodeSha256 } from "../src/core/node/crypto.js";
import { type Sha256, sha256 } from "../src/formats/crypto/sha256.js";
import { VindexTrie, verifyVindexProof } from "../src/formats/vindex/index.js";

const N = Number(process.argv[2] ?? 200_000);
const BATCH = 1_000;
const PROOFS = 2_000;

const random32 = (n: number): Uint8Array[] => {
  const pool = randomBytes(32 * n);
  return Array.from({ length: n }, (_, i) => new Uint8Array(pool.buffer, pool.byteOffset + 32 * i, 32));
};

interface Took {
  wall: number;
  cpu: number;
}

function time<T>(fn: () => T): [T, Took] {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const out = fn();
  const used = process.cpuUsage(cpu);
  return [out, { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }];
}

const ms = (t: Took, per = 1): string =>
  per === 1
    ? `${t.wall.toFixed(1)} ms (cpu ${t.cpu.toFixed(1)} ms)`
    : `${((t.wall / per) * 1000).toFixed(1)} µs (cpu ${((t.cpu / per) * 1000).toFixed(1)} µs)`;

/** `count` sets of `positions` (half of them held already) and the root after them. */
function batchOf(trie: VindexTrie, positions: Uint8Array[]): Took {
  const batch = [...positions.slice(0, BATCH / 2), ...random32(BATCH / 2)];
  const values = random32(BATCH);
  return time(() => {
    for (let i = 0; i < BATCH; i++) trie.set(batch[i] as Uint8Array, values[i] as Uint8Array);
    return trie.root();
  })[1];
}

function run(name: string, hash: Sha256): void {
  const positions = random32(N);
  const values = random32(N);
  const trie = new VindexTrie();
  const [, build] = time(() => {
    for (let i = 0; i < N; i++) trie.set(positions[i] as Uint8Array, values[i] as Uint8Array);
    return trie.root();
  });
  const batch = batchOf(trie, positions);
  const probes = [...positions.slice(0, PROOFS / 2), ...random32(PROOFS / 2)];
  const [proofs, prove] = time(() => probes.map((p) => trie.prove(p)));
  const root = trie.root();
  const held = probes.map((p) => trie.get(p) ?? null);
  const [, verify] = time(() =>
    probes.forEach((p, i) => {
      if (!verifyVindexProof(root, p, proofs[i]!, held[i]!, hash).ok) throw new Error("a proof failed");
    }),
  );
  const siblings = proofs.reduce((n, p) => n + p.siblings.length, 0) / proofs.length;
  console.log(`${name}: ${N} positions`);
  console.log(`  ${N} sets from empty and the root: ${ms(build)}`);
  console.log(`  ${BATCH} sets and the root: ${ms(batch)}`);
  console.log(`  prove: ${ms(prove, PROOFS)} each (${siblings.toFixed(1)} siblings on average)`);
  console.log(`  verify: ${ms(verify, PROOFS)} each`);
}

run("node:crypto", nodeSha256);
run("portable (@noble)", sha256);
