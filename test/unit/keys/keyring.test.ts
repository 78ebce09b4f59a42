import { execFile } from "node:child_process";
import { verify } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { buildSeal } from "../../../src/core/log/seal.js";
import { nodePublicKey } from "../../../src/core/node/crypto.js";
import { decodeSeal, verifySeal } from "../../../src/formats/cose/index.js";
import { FileKeys } from "../../../src/keys/file-keys.js";
import type { KeyBackend, KeySigner, SigningAlg } from "../../../src/keys/key-backend.js";
import { KeyDirectory } from "../../../src/keys/key-directory.js";
import { Keyring, signedWith } from "../../../src/keys/keyring.js";
import type { Db } from "../../../src/store/drivers/db.js";

const run = promisify(execFile);
const noDb = {} as Db;
const fresh = () => mkdtempSync(join(tmpdir(), "archivist-keyring-"));
const keyringAt = (path: string, backend?: (files: FileKeys) => KeyBackend) => {
  const dir = new KeyDirectory(path);
  const files = new FileKeys(dir);
  return new Keyring(noDb, dir, files, backend ? backend(files) : files);
};

/** A backend that signs only asynchronously, as a cloud KMS does (its keys are files here). */
class RemoteLike implements KeyBackend {
  readonly name = "remote-like";
  constructor(private readonly files: FileKeys) {}
  holds(alg: string): alg is SigningAlg {
    return alg === "ES256";
  }
  generate(purpose: string, alg: SigningAlg) {
    return this.files.generate(purpose, alg);
  }
  async signer(purpose: string, ref: string, alg: SigningAlg): Promise<KeySigner> {
    const local = await this.files.signer(purpose, ref, alg);
    return { sign: (data) => new Promise((r) => setTimeout(() => r(local.sign(data)), 1)) };
  }
  discard(purpose: string, ref: string) {
    return this.files.discard(purpose, ref);
  }
  async close() {}
}

describe("the keyring over the key directory", () => {
  it("makes one key per purpose however many keyrings ask at once, and keeps it in files only its owner reads", async () => {
    const path = fresh();
    const rings = Array.from({ length: 8 }, () => keyringAt(path));
    const keys = await Promise.all(rings.map((r) => r.get("seal", "ES256")));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    // The losers' private files were removed: one key file, one manifest.
    expect(readdirSync(join(path, "seal")).sort()).toEqual([`${keys[0]?.kid}.pem`, "keys.json"].sort());
    expect(statSync(path).mode & 0o777).toBe(0o700);
    expect(statSync(join(path, "seal")).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(path, "seal")))
      expect(statSync(join(path, "seal", f)).mode & 0o777).toBe(0o600);
  });

  it("makes one key per purpose when separate processes start at once", { timeout: 60_000 }, async () => {
    const path = fresh();
    const script = fileURLToPath(new URL("./first-key.ts", import.meta.url));
    const outs = await Promise.all(
      Array.from({ length: 4 }, () => run(process.execPath, ["--import", "tsx", script, path])),
    );
    const kids = outs.map((o) => o.stdout.trim());
    expect(kids[0]).toMatch(/^[A-Za-z0-9_-]{22} [A-Za-z0-9_-]{22}$/);
    expect(new Set(kids).size).toBe(1);
    expect(readdirSync(join(path, "token")).filter((f) => f.endsWith(".pem"))).toHaveLength(1);
  });

  it("closes a key directory that others could read", () => {
    const path = join(fresh(), "keys");
    mkdirSync(path, { mode: 0o755 });
    chmodSync(path, 0o755);
    new KeyDirectory(path);
    expect(statSync(path).mode & 0o777).toBe(0o700);
  });

  it("rotates: a new kid signs from then on, the old one stays in the history as retired, and other keyrings learn it at reload", async () => {
    const path = fresh();
    const a = keyringAt(path);
    const b = keyringAt(path);
    const before = await a.get("seal", "ES256");
    expect((await b.get("seal", "ES256")).kid).toBe(before.kid);
    const r = await a.rotate("seal");
    expect(r.old.kid).toBe(before.kid);
    expect((await a.get("seal", "ES256")).kid).toBe(r.new.kid);
    // b still has the old key loaded until it re-reads the directory's rotation mark.
    expect((await b.get("seal", "ES256")).kid).toBe(before.kid);
    expect(await b.reload()).toBe(true);
    expect(await b.reload()).toBe(false);
    const after = await b.get("seal", "ES256");
    expect(after.kid).toBe(r.new.kid);
    const history = await b.history("seal", "ES256");
    expect(history.map((k) => k.kid)).toEqual([r.new.kid, before.kid]);
    expect(history[1]?.retired_at).toBe(r.new.created_at);
    expect(history[0]?.retired_at).toBeNull();
    await expect(a.rotate("wallet:x")).rejects.toThrow(/cannot be rotated/);
  });

  it("a checkpoint key's predecessor co-signs for the overlap it was given", async () => {
    const a = keyringAt(fresh());
    const old = await a.get("tlog", "Ed25519");
    await a.seed("tlog-ml-dsa-44", "ML-DSA-44");
    await a.rotate("tlog", { cosignDays: 30 });
    await a.rotate("tlog-ml-dsa-44", { cosignDays: 0 });
    expect((await a.cosigners("tlog", "Ed25519")).map((k) => k.kid)).toEqual([old.kid]);
    expect(await a.cosigningSeeds("tlog-ml-dsa-44", "ML-DSA-44")).toEqual([]);
  });

  it("signs through a backend that only signs asynchronously (a KMS), in two passes that sign the very bytes", async () => {
    const ring = keyringAt(fresh(), (files) => new RemoteLike(files));
    const key = await ring.get("seal", "ES256");
    expect(key.signSync).toBeUndefined();
    const state = { mmrSize: 3, timestampMs: 1, idtimestamp: 5n, epoch: 1, peaks: [new Uint8Array(32)] };
    const seal = await signedWith(key, (signer) =>
      buildSeal({ kid: key.kid, issuer: "i", logId: "tenant/t", state }, signer),
    );
    expect(decodeSeal(seal).mmrSize).toBe(3);
    expect(verifySeal(seal, nodePublicKey(key.publicKey))).toBe(true);
    // RS256 is made as a file (the backend holds only ES256) and signs synchronously.
    const token = await ring.get("token", "RS256");
    const sig = await token.sign(new Uint8Array([1, 2]));
    expect(verify("sha256", new Uint8Array([1, 2]), token.publicKey, sig)).toBe(true);
  });
});
