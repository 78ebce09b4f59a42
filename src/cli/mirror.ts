import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  auditTiles,
  parseCheckpoint,
  parseNote,
  rootFromTiles,
  sameHash,
  TILE_WIDTH,
  type TileFetch,
  type TileRef,
  tilePath,
  tilesOf,
  verifyCheckpoint,
  verifyRecordInTiles,
} from "../verify/index.js";
import { fetchFailure } from "../web/fetch-error.js";
import type { Command } from "./commands.js";

/** Reads tiles from a mirror directory (the same names as under the log's URL prefix). */
function dirTiles(dir: string): TileFetch {
  return async (ref) => new Uint8Array(readFileSync(join(dir, tilePath(ref))));
}

/** The log's URL prefix: given as such, or as the tenancy's `…/merklelogs/<tenant>`. */
function logPrefix(url: string): string {
  const u = url.replace(/\/+$/, "");
  return u.endsWith("/tlog") ? u : `${u}/tlog`;
}

function writeFileAtomically(file: string, data: Uint8Array | string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

// The largest resource of a log: an entry bundle of 256 entries of at most 64 KiB each (tiles,
// keys and checkpoints are far smaller). A server cannot make the mirror buffer more.
const MAX_RESOURCE_BYTES = TILE_WIDTH * (2 + 0xffff);

/** GET with the cause of a failure named, the body read up to MAX_RESOURCE_BYTES. */
async function get(url: string): Promise<Uint8Array> {
  let res: Response;
  try {
    // A log that stops answering must not hold the mirror forever.
    res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  } catch (err) {
    throw new Error(fetchFailure(url, err));
  }
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (let r = await reader?.read(); r && !r.done; r = await reader?.read()) {
    size += r.value.length;
    if (size > MAX_RESOURCE_BYTES) {
      await reader?.cancel();
      throw new Error(`GET ${url} answered more than ${MAX_RESOURCE_BYTES} bytes`);
    }
    chunks.push(r.value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");

/**
 * Copies a log to plain files, as a static mirror serves it: `key`, `tile/…` and
 * `checkpoint`, written last so the directory's checkpoint only ever names tiles it holds. It
 * verifies what it copies: the checkpoint against the log's key (the one already in the
 * directory, when there is one), consistency with the checkpoint mirrored before, and every
 * tile against the others and the root. Full tiles already present are not fetched again.
 */
async function mirrorLog(
  url: string,
  dir: string,
  progress: (line: string, last: boolean) => void = () => undefined,
): Promise<{ size: number; fetched: number }> {
  const prefix = logPrefix(url);
  const keyFile = join(dir, "key");
  const key = existsSync(keyFile) ? readFileSync(keyFile, "utf8") : text(await get(`${prefix}/key`));
  const note = text(await get(`${prefix}/checkpoint`));
  const cp = verifyCheckpoint(note, { logVkey: key.trim(), witnessVkeys: [], quorum: 0 });
  if (!cp.ok) throw new Error(`checkpoint: ${cp.reason}`);
  const { size, root } = cp.checkpoint;
  const local = dirTiles(dir);
  const previous = existsSync(join(dir, "checkpoint"))
    ? parseCheckpoint(parseNote(readFileSync(join(dir, "checkpoint"), "utf8")).text)
    : undefined;
  if (previous && previous.size > size)
    throw new Error(`the log's checkpoint (${size}) is older than the mirror's (${previous.size})`);
  const wanted = tilesOf(size);
  const missing = wanted.filter((t) => t.width < TILE_WIDTH || !existsSync(join(dir, tilePath(t))));
  let fetched = 0;
  const queue = [...missing];
  const worker = async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      const ref: TileRef = t;
      writeFileAtomically(join(dir, tilePath(ref)), await get(`${prefix}/${tilePath(ref)}`));
      fetched++;
      progress(
        `fetched ${fetched}/${missing.length} tiles (${wanted.length - missing.length} already mirrored)`,
        fetched === missing.length,
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const audit = await auditTiles(size, root, local, (done, total) =>
    progress(`checked ${done}/${total} tiles`, done === total),
  );
  if (!audit.ok) throw new Error(`tiles: ${audit.reason}`);
  // The new tree must extend the one mirrored before: its tiles recompute the old root.
  if (previous && previous.size > 0 && !sameHash(await rootFromTiles(previous.size, local), previous.root))
    throw new Error(`the log at ${size} is not consistent with the mirrored checkpoint at ${previous.size}`);
  writeFileAtomically(keyFile, key.endsWith("\n") ? key : `${key}\n`);
  writeFileAtomically(join(dir, "checkpoint"), note);
  return { size, fetched };
}

export const mirrorCommand: Command = {
  summary: "copy a log's C2SP tiles, checkpoint and key to a directory: mirror <log url> <dir>",
  usage: `usage: archivist mirror <url of …/merklelogs/<tenant>/tlog> <dir>

Copies the checkpoint, its key and every tile (full tiles once, partial ones anew) to plain
files, checking each against the checkpoint's root. Then:
  archivist verify record.json --mirror <dir> [--witness <vkey>]… [--quorum n]`,
  async run(args) {
    const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
    const [url, dir] = positionals;
    if (!url || !dir) {
      process.stderr.write("usage: archivist mirror <url of …/merklelogs/<tenant>/tlog> <dir>\n");
      return 2;
    }
    try {
      const tty = process.stderr.isTTY;
      let shown = 0;
      // Progress at most twice a second, and each phase's last line.
      const { size, fetched } = await mirrorLog(url, dir, (line, last) => {
        if (!last && Date.now() - shown < 500) return;
        shown = Date.now();
        process.stderr.write(tty ? `\r${line}\u001b[K${last ? "\n" : ""}` : `${line}\n`);
      });
      process.stdout.write(`OK mirrored ${size} entries to ${dir} (${fetched} tiles fetched)\n`);
      return 0;
    } catch (err) {
      process.stdout.write(`FAILED ${(err as Error).message}\n`);
      return 1;
    }
  },
};

/** Reads tiles, the checkpoint and the key from a log's URL prefix or a mirror directory. */
function tileSource(where: string): { fetch: TileFetch; file(name: string): Promise<string> } {
  if (/^https?:\/\//.test(where)) {
    const prefix = logPrefix(where);
    return {
      fetch: async (ref) => get(`${prefix}/${tilePath(ref)}`),
      file: async (name) => text(await get(`${prefix}/${name}`)),
    };
  }
  return { fetch: dirTiles(where), file: async (name) => readFileSync(join(where, name), "utf8") };
}

/**
 * `archivist verify <record.json> --mirror <dir | log url>`: the record's leaf in the tiles,
 * under a checkpoint signed by the log's key (the mirror's `key`, or `--log-key`) and cosigned
 * by `--quorum` of the `--witness` vkeys. With a directory nothing is fetched.
 */
export async function verifyRecordInMirror(
  file: string,
  where: string,
  opts: { witnesses: string[]; quorum?: number; logKey?: string },
): Promise<string> {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`cannot read the record ${file}: ${(err as Error).message}`);
  }
  const src = tileSource(where);
  const logVkey = (opts.logKey ? readFileSync(opts.logKey, "utf8") : await src.file("key")).trim();
  const verdict = await verifyRecordInTiles(
    record,
    await src.file("checkpoint"),
    { logVkey, witnessVkeys: opts.witnesses, quorum: opts.quorum ?? opts.witnesses.length },
    src.fetch,
  );
  if (!verdict.ok) throw new Error(verdict.reason);
  const witnessed = verdict.cosigners.length ? `, cosigned by ${verdict.cosigners.join(", ")}` : "";
  return `OK ${String(record.identity)} is leaf ${verdict.leafIndex} of ${verdict.origin} at size ${verdict.size}${witnessed}`;
}
