import { createHash, createPublicKey, verify } from "node:crypto";

/**
 * A tlog-tiles client written from the C2SP texts alone (signed-note, tlog-checkpoint,
 * tlog-tiles, RFC 6962 §2.1), sharing no code with the service, so the tests check the
 * service against the specs rather than against itself.
 */
const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

// RFC 6962 §2.1: MTH of a list of leaf hashes (the leaves' own hashing already done).
function mthOfLeafHashes(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return sha256();
  if (hashes.length === 1) return hashes[0] as Uint8Array;
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return sha256(Uint8Array.of(1), mthOfLeafHashes(hashes.slice(0, k)), mthOfLeafHashes(hashes.slice(k)));
}

/** "index 1234067 will be encoded as x001/x234/067". */
function indexPath(n: number): string {
  const parts: string[] = [];
  do {
    parts.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? `x${p}` : p)).join("/");
}

export interface SpecCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  keyName: string;
}

/** signed-note + tlog-checkpoint: checks the Ed25519 signature of the vkey's key, returns the body. */
export function verifyCheckpointNote(note: string, vkey: string): SpecCheckpoint {
  const [keyName, keyIdHex, ...rest] = vkey.trim().split("+") as [string, string, ...string[]];
  const keyB64 = rest.join("+");
  const material = Buffer.from(keyB64, "base64");
  if (material[0] !== 0x01) throw new Error("not an Ed25519 vkey");
  const pub = material.subarray(1);
  const id = sha256(Buffer.from(keyName), Uint8Array.of(0x0a, 0x01), pub).subarray(0, 4);
  if (Buffer.from(id).toString("hex") !== keyIdHex) throw new Error("vkey key id mismatch");
  const cut = note.lastIndexOf("\n\n");
  const text = note.slice(0, cut + 1);
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), pub]),
    format: "der",
    type: "spki",
  });
  const ours = note
    .slice(cut + 2)
    .split("\n")
    .filter((l) => l.startsWith(`\u2014 ${keyName} `))
    .map((l) => Buffer.from(l.slice(keyName.length + 3), "base64"))
    .filter((sig) => sig.subarray(0, 4).equals(Buffer.from(id)));
  if (ours.length === 0) throw new Error("no signature by the log's key");
  for (const sig of ours)
    if (!verify(null, Buffer.from(text), key, sig.subarray(4)))
      throw new Error("log signature does not verify");
  const [origin, size, root] = text.split("\n") as [string, string, string];
  return { origin, size: Number(size), root: new Uint8Array(Buffer.from(root, "base64")), keyName };
}

/**
 * Fetches every level-0 tile of the tree (full ones, then the partial one), recomputes the root
 * from the leaf hashes, checks each higher-level hash against the full tile below it, and the
 * entry bundles against the leaf hashes. Returns the root and the entries.
 */
export async function rootFromTilesBySpec(
  prefix: string,
  size: number,
): Promise<{ root: Uint8Array; entries: Uint8Array[]; fullTileHeaders: Headers | undefined }> {
  const get = async (path: string) => {
    const res = await fetch(`${prefix}/${path}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
  };
  const tileName = (level: number | string, n: number, w: number) =>
    `tile/${level}/${indexPath(n)}${w === 256 ? "" : `.p/${w}`}`;
  let fullTileHeaders: Headers | undefined;
  const levels: Uint8Array[][] = [];
  for (let level = 0; Math.floor(size / 256 ** level) > 0; level++) {
    const count = Math.floor(size / 256 ** level);
    const hashes: Uint8Array[] = [];
    for (let n = 0; n * 256 < count; n++) {
      const w = Math.min(256, count - n * 256);
      const { bytes, headers } = await get(tileName(level, n, w));
      if (bytes.length !== w * 32) throw new Error(`tile ${level}/${n} has ${bytes.length} bytes`);
      if (w === 256) fullTileHeaders ??= headers;
      for (let i = 0; i < w; i++) hashes.push(bytes.slice(i * 32, (i + 1) * 32));
    }
    levels.push(hashes);
  }
  const leafHashes = levels[0] ?? [];
  // Each level-l hash is the MTH of 256 hashes of level l−1 (so of 256^l leaves).
  for (let level = 1; level < levels.length; level++)
    (levels[level] as Uint8Array[]).forEach((h, i) => {
      const below = (levels[level - 1] as Uint8Array[]).slice(i * 256, (i + 1) * 256);
      if (Buffer.compare(mthOfLeafHashes(below), h) !== 0)
        throw new Error(`tile hash ${level}/${i} is wrong`);
    });
  const entries: Uint8Array[] = [];
  for (let n = 0; n * 256 < size; n++) {
    const w = Math.min(256, size - n * 256);
    const { bytes } = await get(tileName("entries", n, w));
    for (let at = 0; at < bytes.length; ) {
      const len = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
      entries.push(bytes.slice(at + 2, at + 2 + len));
      at += 2 + len;
    }
  }
  if (entries.length !== size) throw new Error(`entry bundles hold ${entries.length} entries, not ${size}`);
  entries.forEach((e, i) => {
    if (Buffer.compare(sha256(Uint8Array.of(0), e), leafHashes[i] as Uint8Array) !== 0)
      throw new Error(`entry ${i} does not hash to its leaf`);
  });
  return { root: mthOfLeafHashes(leafHashes), entries, fullTileHeaders };
}
