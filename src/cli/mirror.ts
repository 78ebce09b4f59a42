import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { sameHash } from "../formats/rfc9162/hash.js";
import { parseCheckpoint } from "../formats/tlog/checkpoint.js";
import { parseNote } from "../formats/tlog/note.js";
import { eachTile, TILE_WIDTH, tileCount, tilePath } from "../formats/tlog/tile-path.js";
import { auditTiles, rootFromTiles } from "../formats/tlog/tiles.js";
import { PublicApi } from "../lookup/public-api.js";
import { readWithin, timeLimit } from "../net/time-limit.js";
import {
  type IssuerKeys,
  type RecordInLogReport,
  type TileFetch,
  type TileRef,
  type TrustRoots,
  USAGE_EXIT_CODE,
  verifyCheckpoint,
  verifyRecordInLog,
} from "../verify/index.js";
import type { Command } from "./command.js";

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

/**
 * The largest log a mirror copies: 2^32 entries (16.8 million entry bundles and as many level-0
 * tiles). A checkpoint claiming more is refused before any tile is fetched: a log's own key can
 * sign any size, and a mirror should not spend days or disks on a claim.
 */
const MAX_MIRROR_ENTRIES = 2 ** 32;

/** The overall deadline of a mirror or a check against a log URL, unless --deadline says otherwise. */
const DEFAULT_DEADLINE_SECONDS = 3600;

/**
 * How long one request may take, answer and body, unless --timeout says otherwise: a server that
 * takes the connection and never answers is given up on then, not at the overall deadline an hour
 * later. Far more than a tile (8 KiB) or a checkpoint takes; an entry bundle of large entries on a
 * slow link may need --timeout.
 */
const DEFAULT_REQUEST_SECONDS = 15;

/** Every request of one run shares a deadline: a server that never answers cannot hold it forever. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  constructor(
    readonly seconds: number,
    /** Each request's own time limit. */
    readonly requestSeconds = DEFAULT_REQUEST_SECONDS,
  ) {
    this.timer = setTimeout(() => this.controller.abort(), seconds * 1000);
    this.timer.unref();
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get passed(): boolean {
    return this.controller.signal.aborted;
  }
  end(): void {
    clearTimeout(this.timer);
  }
}

/**
 * GET through the one look-up client (the cause of a failure named, the body read up to
 * MAX_RESOURCE_BYTES), within its own time limit and the deadline: a log that stops answering
 * must not hold the mirror. The limit is this function's, so its failure can name it.
 */
async function get(url: string, deadline: Deadline): Promise<Uint8Array> {
  const limit = timeLimit(deadline.requestSeconds * 1000, deadline.signal);
  const api = new PublicApi("", { maxBytes: MAX_RESOURCE_BYTES, signal: limit.signal });
  try {
    // Raced as well: the limit holds even where a fetch loses track of the signal it was given.
    return await readWithin(api.bytes(url), limit.signal);
  } catch (err) {
    if (deadline.passed) throw new Error(`GET ${url}: the overall deadline of ${deadline.seconds}s passed`);
    if (limit.signal.aborted)
      throw new Error(
        `GET ${url}: no answer within ${deadline.requestSeconds}s, the time limit of one request (--timeout)`,
      );
    throw err;
  } finally {
    limit.clear();
  }
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
  deadline: Deadline,
  progress: (line: string, last: boolean) => void = () => undefined,
): Promise<{ size: number; fetched: number }> {
  const prefix = logPrefix(url);
  const keyFile = join(dir, "key");
  const key = existsSync(keyFile)
    ? readFileSync(keyFile, "utf8")
    : text(await get(`${prefix}/key`, deadline));
  const note = text(await get(`${prefix}/checkpoint`, deadline));
  const cp = verifyCheckpoint(note, { logVkey: key.trim(), witnessVkeys: [], quorum: 0 });
  if (!cp.ok) throw new Error(`checkpoint: ${cp.reason}`);
  const { size, root } = cp.checkpoint;
  if (size > MAX_MIRROR_ENTRIES)
    throw new Error(
      `the checkpoint claims ${size} entries, more than a mirror copies (${MAX_MIRROR_ENTRIES})`,
    );
  const local = dirTiles(dir);
  const previous = existsSync(join(dir, "checkpoint"))
    ? parseCheckpoint(parseNote(readFileSync(join(dir, "checkpoint"), "utf8")).text)
    : undefined;
  if (previous && previous.size > size)
    throw new Error(`the log's checkpoint (${size}) is older than the mirror's (${previous.size})`);
  // Tiles are taken one at a time from a generator: memory does not grow with the log.
  const total = tileCount(size);
  const tiles = eachTile(size);
  let fetched = 0;
  let kept = 0;
  const worker = async () => {
    for (let n = tiles.next(); !n.done; n = tiles.next()) {
      const ref: TileRef = n.value;
      if (ref.width === TILE_WIDTH && existsSync(join(dir, tilePath(ref)))) {
        kept++;
        continue;
      }
      writeFileAtomically(join(dir, tilePath(ref)), await get(`${prefix}/${tilePath(ref)}`, deadline));
      fetched++;
      progress(
        `fetched ${fetched} of ${total - kept} tiles (${kept} already mirrored)`,
        fetched + kept === total,
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const audit = await auditTiles(size, root, local, (done, all) =>
    progress(`checked ${done}/${all} tiles`, done === all),
  );
  if (!audit.ok) throw new Error(`tiles: ${audit.reason}`);
  // The new tree must extend the one mirrored before: its tiles recompute the old root.
  if (previous && previous.size > 0 && !sameHash(await rootFromTiles(previous.size, local), previous.root))
    throw new Error(`the log at ${size} is not consistent with the mirrored checkpoint at ${previous.size}`);
  writeFileAtomically(keyFile, key.endsWith("\n") ? key : `${key}\n`);
  writeFileAtomically(join(dir, "checkpoint"), note);
  return { size, fetched };
}

/** `--deadline <seconds>` or `--timeout <seconds>`: a positive number, or the default. */
function seconds(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!(n > 0 && Number.isFinite(n))) throw new Error(`--${flag} takes seconds > 0, got "${value}"`);
  return n;
}

export const mirrorCommand: Command = {
  usage: `usage: archivist mirror <url of …/merklelogs/<tenant>/tlog> <dir> [--deadline <seconds>] [--timeout <seconds>]

Copies the checkpoint, its key and every tile (full tiles once, partial ones anew) to plain
files, checking each against the checkpoint's root. A checkpoint of more than 2^32 entries is
refused. Time limits: each request --timeout (default ${DEFAULT_REQUEST_SECONDS}s; a server that takes the
connection and never answers is given up on then), the whole run --deadline (default ${DEFAULT_DEADLINE_SECONDS}s).
The mirror's key is the log's own claim: check records against it with your trust roots:
  archivist verify record.json --mirror <dir> --log-key <vkey file> [--witness <vkey>]… [--quorum n]

Exit status: 0 mirrored; 1 refused or failed (the cause on the FAILED line); 64 a usage error.`,
  async run(args) {
    let parsed: ReturnType<
      typeof parseArgs<{
        options: { deadline: { type: "string" }; timeout: { type: "string" } };
        allowPositionals: true;
      }>
    >;
    try {
      parsed = parseArgs({
        args,
        options: { deadline: { type: "string" }, timeout: { type: "string" } },
        allowPositionals: true,
        strict: true,
      });
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      return USAGE_EXIT_CODE;
    }
    const [url, dir] = parsed.positionals;
    if (!url || !dir || parsed.positionals.length > 2) {
      process.stderr.write(
        "usage: archivist mirror <url of …/merklelogs/<tenant>/tlog> <dir> [--deadline <seconds>] [--timeout <seconds>]\n",
      );
      return USAGE_EXIT_CODE;
    }
    let overall: number;
    let request: number;
    try {
      overall = seconds("deadline", parsed.values.deadline, DEFAULT_DEADLINE_SECONDS);
      request = seconds("timeout", parsed.values.timeout, DEFAULT_REQUEST_SECONDS);
    } catch (err) {
      process.stderr.write(`archivist mirror: ${(err as Error).message}\n`);
      return USAGE_EXIT_CODE;
    }
    let deadline: Deadline | undefined;
    try {
      deadline = new Deadline(overall, request);
      const tty = process.stderr.isTTY;
      let shown = 0;
      // Progress at most twice a second, and each phase's last line.
      const { size, fetched } = await mirrorLog(url, dir, deadline, (line, last) => {
        if (!last && Date.now() - shown < 500) return;
        shown = Date.now();
        process.stderr.write(tty ? `\r${line}\u001b[K${last ? "\n" : ""}` : `${line}\n`);
      });
      process.stdout.write(`OK mirrored ${size} entries to ${dir} (${fetched} tiles fetched)\n`);
      return 0;
    } catch (err) {
      process.stdout.write(`FAILED ${(err as Error).message}\n`);
      return 1;
    } finally {
      deadline?.end();
    }
  },
};

/** Reads tiles, the checkpoint and the key from a log's URL prefix or a mirror directory. */
function tileSource(
  where: string,
  deadline: Deadline,
): { fetch: TileFetch; file(name: string): Promise<string | undefined> } {
  if (/^https?:\/\//.test(where)) {
    const prefix = logPrefix(where);
    return {
      fetch: async (ref) => get(`${prefix}/${tilePath(ref)}`, deadline),
      file: async (name) => text(await get(`${prefix}/${name}`, deadline)),
    };
  }
  return {
    fetch: dirTiles(where),
    file: async (name) =>
      existsSync(join(where, name)) ? readFileSync(join(where, name), "utf8") : undefined,
  };
}

/**
 * `archivist verify <record.json> --mirror <dir | log url>`: the record's leaf in the tiles,
 * under a checkpoint judged against the caller's roots (`--log-key`, `--witness`, `--policy`).
 * The mirror's own `key` shows only that the mirror is self-consistent: a forged mirror signs
 * with its own key under the genuine origin. With a directory nothing is fetched.
 */
export async function verifyRecordInMirror(
  file: string,
  where: string,
  trust: TrustRoots,
  statement: { issuerKeys?: IssuerKeys; statement?: Uint8Array } = {},
  deadlineAfter = DEFAULT_DEADLINE_SECONDS,
): Promise<RecordInLogReport> {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`cannot read the record ${file}: ${(err as Error).message}`);
  }
  const deadline = new Deadline(deadlineAfter);
  try {
    const src = tileSource(where, deadline);
    const note = await src.file("checkpoint");
    if (note === undefined) throw new Error(`${where} holds no checkpoint`);
    const carried = (await src.file("key"))?.trim();
    return await verifyRecordInLog(record, note, carried, trust, src.fetch, statement);
  } finally {
    deadline.end();
  }
}
