import { fromBase64, NoteError } from "./note.js";

/** C2SP tlog-checkpoint note text: origin, tree size, base64 root, optional extension lines (the log writes it: core/log/tlog-format.ts). */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  extensions: string[];
}

/** Parses a checkpoint's note text (the part before the signatures). */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith("\n")) throw new NoteError("checkpoint text must end in a newline");
  const lines = text.slice(0, -1).split("\n");
  const [origin, size, root, ...extensions] = lines;
  if (!origin || size === undefined || root === undefined)
    throw new NoteError("a checkpoint has at least three lines");
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)))
    throw new NoteError("checkpoint size is not a decimal without leading zeroes");
  const hash = fromBase64(root);
  if (hash.length !== 32) throw new NoteError("checkpoint root is not a SHA-256 hash");
  if (extensions.some((e) => e === "")) throw new NoteError("checkpoint extension lines must be non-empty");
  return { origin, size: Number(size), root: hash, extensions };
}
