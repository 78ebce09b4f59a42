import { randomBytes } from "node:crypto";
import { chmodSync, constants, mkdirSync, statSync } from "node:fs";
import { link, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { StorageError } from "../store/drivers/db.js";
import type { KeyAlg } from "./key-backend.js";

/** What is public about one key of a purpose, and where its private half is. */
export interface KeyEntry {
  kid: string;
  alg: KeyAlg;
  /** The backend holding the private half (`key-directory`, `pkcs11`, …). */
  holder: string;
  /** The holder's name for it: a file of this directory, a token object's CKA_ID, … */
  ref: string;
  /** The public key as a JWK (ML-DSA-44: `{kty: "AKP", alg, pub}`; HS256: none). */
  public_jwk: Record<string, unknown>;
  created_at: string;
  /** When a newer key took over; null while it is the purpose's current key. */
  retired_at: string | null;
  /** A retired checkpoint key keeps co-signing every checkpoint until then, so witnesses can move to the new one. */
  cosign_until?: string;
}

/** Every key a purpose ever had, oldest first; the last one not retired signs. */
export interface Manifest {
  purpose: string;
  keys: KeyEntry[];
}

const PURPOSE = /^[a-z0-9][a-z0-9:.-]{0,100}$/;
const FILE = /^[A-Za-z0-9_.-]{1,120}$/;
/** Written at every rotation, so every process re-reads its keys (`Keyring.reload`). */
const ROTATIONS = "rotations";

function checkPurpose(purpose: string): string {
  if (!PURPOSE.test(purpose)) throw new StorageError(`not a key purpose: "${purpose}"`);
  return purpose;
}

async function writeExclusive(path: string, text: string): Promise<void> {
  const f = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await f.writeFile(text);
    await f.sync();
  } finally {
    await f.close();
  }
}

/**
 * The key directory: files outside the database (mode 0600 in a 0700 directory), one folder per
 * purpose with its manifest (`keys.json`) and the private files of the keys it holds itself. Any
 * number of processes share it: a purpose's first key is created exclusively (the first process
 * to link its manifest wins; the others adopt it), later changes are made under the purpose's
 * lock file and land by an atomic rename, so a reader always sees a whole manifest.
 */
export class KeyDirectory {
  constructor(readonly path: string) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    // Whoever can read the directory can sign as the service: never more than its owner.
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) {
      try {
        chmodSync(path, 0o700);
      } catch (err) {
        throw new StorageError(
          `the key directory ${path} is open to others (mode ${mode.toString(8)}) and cannot be closed: ${(err as Error).message}`,
        );
      }
    }
  }

  private dir(purpose: string): string {
    const d = join(this.path, checkPurpose(purpose));
    mkdirSync(d, { recursive: true, mode: 0o700 });
    return d;
  }

  /** The purpose's manifest, or undefined before its first key. */
  async manifest(purpose: string): Promise<Manifest | undefined> {
    try {
      return JSON.parse(await readFile(join(this.dir(purpose), "keys.json"), "utf8")) as Manifest;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StorageError(`the key manifest of ${purpose} cannot be read: ${(err as Error).message}`);
    }
  }

  /** Purposes that have a manifest (every key the directory knows of). */
  async purposes(): Promise<string[]> {
    const names = await readdir(this.path, { withFileTypes: true });
    const out: string[] = [];
    for (const n of names)
      if (n.isDirectory() && PURPOSE.test(n.name) && (await this.manifest(n.name))) out.push(n.name);
    return out.sort();
  }

  /**
   * Records the purpose's first key unless another process did first: the manifest is written to
   * a file of its own and linked into place, which fails when one is there. Returns the manifest
   * that won (the caller discards its own key when it is not in it).
   */
  async createFirst(purpose: string, entry: KeyEntry): Promise<Manifest> {
    const d = this.dir(purpose);
    const tmp = join(d, `.keys.${randomBytes(6).toString("hex")}.json`);
    await writeExclusive(tmp, JSON.stringify({ purpose, keys: [entry] } satisfies Manifest, null, 2));
    try {
      await link(tmp, join(d, "keys.json"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      await unlink(tmp);
    }
    const won = await this.manifest(purpose);
    if (!won) throw new StorageError(`the key manifest of ${purpose} vanished while it was created`);
    return won;
  }

  /**
   * Changes the purpose's manifest under its lock (one rotation at a time, across processes); the
   * new manifest replaces the old by an atomic rename.
   */
  async update(purpose: string, change: (m: Manifest | undefined) => Promise<Manifest>): Promise<Manifest> {
    const d = this.dir(purpose);
    const lock = join(d, ".lock");
    try {
      await writeExclusive(lock, String(process.pid));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST")
        throw new StorageError(
          `another change of the ${purpose} key is under way (${lock}); if no archivist command is running, remove that file`,
        );
      throw err;
    }
    try {
      const next = await change(await this.manifest(purpose));
      const tmp = join(d, `.keys.${randomBytes(6).toString("hex")}.json`);
      await writeExclusive(tmp, JSON.stringify(next, null, 2));
      await rename(tmp, join(d, "keys.json"));
      return next;
    } finally {
      await unlink(lock);
    }
  }

  /** Writes a private file of the purpose (mode 0600, never over an existing one). */
  async writePrivate(purpose: string, name: string, text: string): Promise<void> {
    if (!FILE.test(name)) throw new StorageError(`not a key file name: ${name}`);
    await writeExclusive(join(this.dir(purpose), name), text);
  }

  async readPrivate(purpose: string, name: string): Promise<string> {
    if (!FILE.test(name)) throw new StorageError(`not a key file name: ${name}`);
    try {
      return await readFile(join(this.dir(purpose), name), "utf8");
    } catch (err) {
      throw new StorageError(
        `the private key ${name} of ${purpose} cannot be read from ${this.path}: ${(err as Error).message}`,
      );
    }
  }

  async removePrivate(purpose: string, name: string): Promise<void> {
    if (!FILE.test(name)) return;
    await unlink(join(this.dir(purpose), name)).catch(() => undefined);
  }

  /** Changes at every rotation: a process whose keys are older re-reads them. */
  async rotations(): Promise<string> {
    return readFile(join(this.path, ROTATIONS), "utf8").catch(() => "");
  }

  async markRotation(): Promise<void> {
    const tmp = join(this.path, `.${ROTATIONS}.${randomBytes(6).toString("hex")}`);
    await writeExclusive(tmp, `${new Date().toISOString()} ${randomBytes(6).toString("hex")}\n`);
    await rename(tmp, join(this.path, ROTATIONS));
  }
}
