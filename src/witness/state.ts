import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { WitnessedState } from "../core/log/witness.js";
import { parseCheckpoint } from "../formats/tlog/checkpoint.js";
import { parseNote } from "../formats/tlog/note.js";

/**
 * A witness's state in a directory of its own: its key seed (`key` for Ed25519,
 * `key-ml-dsa-44` for ML-DSA-44, created once, mode 0600) and, per log origin, the last checkpoint it cosigned (`logs/<sha256(origin)>`,
 * the note with the log's signature and its own cosignature). Each file is replaced whole by
 * an atomic rename after an fsync, so a crash leaves the old state or the new, never a mix.
 */
export class WitnessState {
  constructor(readonly dir: string) {
    mkdirSync(join(dir, "logs"), { recursive: true, mode: 0o700 });
  }

  /**
   * The key seed, created on first use: `key` for Ed25519, `key-ml-dsa-44` for ML-DSA-44 (a
   * separate file, so a witness switched between types never reads one key as the other).
   */
  seed(type: "ed25519" | "ml-dsa-44" = "ed25519"): Uint8Array {
    const file = join(this.dir, type === "ed25519" ? "key" : "key-ml-dsa-44");
    try {
      const seed = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
      if (seed.length !== 32) throw new Error(`${file} does not hold a 32-byte key seed`);
      return new Uint8Array(seed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      writeAtomically(file, `${randomBytes(32).toString("base64")}\n`, 0o600);
      return this.seed(type);
    }
  }

  private file(origin: string): string {
    return join(this.dir, "logs", createHash("sha256").update(origin).digest("hex"));
  }

  /** The note last cosigned for `origin`, or undefined if none. */
  note(origin: string): string | undefined {
    try {
      return readFileSync(this.file(origin), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /** Size and root of the last checkpoint cosigned for `origin`. */
  latest(origin: string): WitnessedState | undefined {
    const note = this.note(origin);
    if (note === undefined) return undefined;
    const c = parseCheckpoint(parseNote(note).text);
    return { size: c.size, root: c.root };
  }

  /** Persists a newly cosigned checkpoint note (before the cosignature is answered). */
  save(origin: string, note: string): void {
    writeAtomically(this.file(origin), note, 0o600);
  }
}

function writeAtomically(file: string, content: string, mode: number): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dir = openSync(join(file, ".."), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
