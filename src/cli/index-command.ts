import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Command as Cli } from "commander";
import { TokenSource } from "../client/token-source.js";
import { nodeSha256 } from "../core/node/crypto.js";
import { isUuid } from "../formats/ids.js";
import type { ApiRecord } from "../formats/record/api-record.js";
import { parseTlogProof } from "../formats/tlog/proof.js";
import { parseProofExtra } from "../formats/tlog/proof-extra.js";
import { tilePath } from "../formats/tlog/tile-path.js";
import type { TileFetch } from "../formats/tlog/tiles.js";
import { LookupError, PublicApi } from "../lookup/public-api.js";
import type { BearerTokens } from "../net/bearer-tokens.js";
import {
  auditIndex,
  type IndexAudit,
  type IndexRebuild,
  type IndexSource,
  type RecordSource,
  rebuildIndex,
} from "../verify/index.js";
import type { CredentialFlags } from "./caller-api.js";
import type { Exit } from "./command.js";
import { declaredGroup } from "./declare.js";
import { UsageError } from "./usage.js";

// What answers at a URL cannot make the CLI wait or buffer forever: an entry bundle of large
// entries or a page of 500 records is the largest answer, far below this.
const REQUEST_MS = 120_000;
const MAX_BYTES = 64 * 1024 * 1024;
// Asset-free events are searched this many at a time, the search's largest page.
const SEARCH_PAGE = 50;

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** `…/merklelogs/<tenant>` (or its `/tlog` or `/vindex`): the tenancy's uuid and that prefix. */
function logUrl(url: string): { base: string; tenant: string } {
  const m = /^(https?:\/\/.+\/merklelogs\/([0-9a-fA-F-]{36}))(?:\/(?:tlog|vindex))?\/*$/.exec(url);
  if (!m || !isUuid(m[2] as string))
    throw new UsageError(
      `index audit takes the log's URL, …/archivist/v1/merklelogs/<tenant uuid>, got "${url}"`,
    );
  return { base: m[1] as string, tenant: (m[2] as string).toLowerCase() };
}

function readFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

function writeFileAtomically(file: string, data: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/**
 * The public material of a log's index, from the service (the log's URL) or, for the log's
 * checkpoint and tiles, from a directory `archivist mirror` wrote.
 */
function publicSource(api: PublicApi, mirror: string | undefined): IndexSource {
  const dirTiles: TileFetch = async (ref) => new Uint8Array(readFileSync(join(mirror ?? "", tilePath(ref))));
  return {
    async indexCheckpoint() {
      try {
        return text(await api.bytes("/vindex/checkpoint"));
      } catch (err) {
        if (err instanceof LookupError && err.status === 404)
          throw new Error("the log has no index checkpoint: its index has no revision yet");
        throw err;
      }
    },
    revisions: (from, to) => api.json(`/vindex/revisions?from=${from}&to=${to}`),
    consistency: (from, to) => api.json(`/vindex/consistency?from=${from}&to=${to}`),
    logCheckpoint: async () =>
      mirror
        ? readFile(join(mirror, "checkpoint"), "the mirror's checkpoint")
        : text(await api.bytes("/tlog/checkpoint")),
    tiles: mirror ? dirTiles : (ref) => api.bytes(`/tlog/${tilePath(ref)}`),
  };
}

/** The pinned log key (`--log-key`), else the one the service serves: then the output says so. */
async function logKey(api: PublicApi, file: string | undefined): Promise<{ vkey: string; pinned: boolean }> {
  if (file) return { vkey: readFile(file, "the log key").trim(), pinned: true };
  return { vkey: text(await api.bytes("/tlog/key")).trim(), pinned: false };
}

/** Progress on stderr, at most twice a second and each phase's last line (as `archivist mirror`). */
function progressLine(): (line: string, last: boolean) => void {
  const tty = process.stderr.isTTY;
  let shown = 0;
  return (line, last) => {
    if (!last && Date.now() - shown < 500) return;
    shown = Date.now();
    process.stderr.write(tty ? `\r${line}\u001b[K${last ? "\n" : ""}` : `${line}\n`);
  };
}

/**
 * The verdict's lines on stdout and its exit status, in the verifier's vocabulary (EXIT_CODES):
 * 1 when a check failed; 2 when all passed but against the key the service serves, which proves
 * only that the service agrees with itself; 0 when all passed against the pinned key.
 */
function report(
  headline: string,
  r: { failures: string[]; checked: string[]; notChecked: string[] },
  pinned: boolean,
  vkey: string,
): number {
  const lines = r.failures.length
    ? [`FAILED ${r.failures[0]}`, ...r.failures.slice(1).map((f) => `  also: ${f}`)]
    : [`OK ${headline}`];
  lines.push(...r.checked.map((c) => `  checked: ${c}`), ...r.notChecked.map((n) => `  not checked: ${n}`));
  lines.push(
    pinned
      ? "  log key: pinned (--log-key)"
      : `  log key: NOT PINNED, the one the service serves (${vkey}): compare it with one obtained another way and give it as --log-key`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  return r.failures.length ? 1 : pinned ? 0 : 2;
}

const failed = (err: unknown): number => {
  if (err instanceof UsageError) throw err;
  process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
};

interface AuditFlags {
  logKey?: string;
  state?: string;
  mirror?: string;
}

/** `archivist index audit <…/merklelogs/<tenant>> [--log-key f] [--state f] [--mirror dir]`. */
async function runAudit(url: string, v: AuditFlags): Promise<number> {
  const { base, tenant } = logUrl(url);
  const api = new PublicApi(base, { maxBytes: MAX_BYTES, timeoutMs: REQUEST_MS });
  const { vkey, pinned } = await logKey(api, v.logKey);
  const previous = v.state && existsSync(v.state) ? readFile(v.state, "the saved state") : undefined;
  const audit: IndexAudit = await auditIndex(publicSource(api, v.mirror), {
    logVkey: vkey,
    previous,
    hash: nodeSha256,
    progress: progressLine(),
  });
  const size = audit.indexCheckpoint?.size ?? 0;
  const headline = `index of tenant/${tenant}: ${size} revisions signed and served whole, ${audit.covered} bound to the log's own roots${audit.logCheckpoint ? ` (its checkpoint of ${audit.logCheckpoint.size} entries)` : ""}`;
  if (v.state && audit.failures.length === 0 && audit.indexNote) {
    writeFileAtomically(v.state, audit.indexNote);
    audit.checked.push(`saved the index checkpoint of ${size} revisions to ${v.state}`);
  }
  return report(headline, audit, pinned, vkey);
}

/** The caller's bearer tokens: `--token` (or ARCHIVIST_TOKEN), else client credentials. */
function callerTokens(base: string, v: CredentialFlags): string | BearerTokens {
  const token = v.token ?? process.env.ARCHIVIST_TOKEN;
  if (token) return token;
  const clientId = v.clientId ?? process.env.ARCHIVIST_CLIENT_ID;
  const clientSecret = v.clientSecret ?? process.env.ARCHIVIST_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new UsageError(
      "give credentials: --client-id and --client-secret (or ARCHIVIST_CLIENT_ID / ARCHIVIST_CLIENT_SECRET), or --token",
    );
  return new TokenSource({ url: base, clientId, clientSecret });
}

/** A POST through the look-up client (its tokens, bounds and errors), with a JSON body. */
function poster(base: string, tokens: string | BearerTokens) {
  return async (path: string, body: unknown): Promise<unknown> => {
    const json = JSON.stringify(body);
    const api = new PublicApi(base, {
      tokens,
      maxBytes: MAX_BYTES,
      timeoutMs: REQUEST_MS,
      fetch: (url, init) =>
        fetch(url, {
          ...init,
          method: "POST",
          body: json,
          headers: { ...init?.headers, "content-type": "application/json" },
        }),
    });
    try {
      return await api.json(path);
    } catch (err) {
      if (err instanceof LookupError)
        throw new LookupError(err.message.replace(/^GET /, "POST "), err.status);
      throw err;
    }
  };
}

/** Every record of the tenancy the caller may read: asset events, then asset-free events. */
async function* everyRecord(api: PublicApi, post: ReturnType<typeof poster>): AsyncGenerator<ApiRecord[]> {
  let token = "";
  do {
    const page = await api.json<{ events?: ApiRecord[]; next_page_token?: string }>(
      `/archivist/v2/assets/-/events?page_size=500${token ? `&page_token=${encodeURIComponent(token)}` : ""}`,
    );
    yield page.events ?? [];
    token = page.next_page_token ?? "";
  } while (token);
  // The search pages newest first by offset: records added meanwhile repeat ones read, never hide one.
  for (let skip = 0; ; skip += SEARCH_PAGE) {
    const page = (await post("/archivist/v1/events/search", { top: SEARCH_PAGE, skip })) as {
      events?: ApiRecord[];
    };
    const events = page.events ?? [];
    yield events;
    if (events.length < SEARCH_PAGE) return;
  }
}

/** A record's own route: `/archivist/v2/assets/…/events/…` or `/archivist/v1/events/…`. */
const recordPath = (identity: string) =>
  identity.startsWith("events/") ? `/archivist/v1/${identity}` : `/archivist/v2/${identity}`;

/** What a rebuild reads with the caller's grant, from the service. */
function recordSource(api: PublicApi, post: ReturnType<typeof poster>, tenant: string): RecordSource {
  return {
    records: () => everyRecord(api, post),
    async statement(record) {
      // This service's tlog-proof of a registered statement carries the statement (formats/tlog/proof-extra.ts).
      const proof = text(await api.bytes(`/archivist/v1/tlog-proofs/${String(record.identity)}`));
      return parseProofExtra(parseTlogProof(proof).extra).statement;
    },
    async entry(n) {
      const at = await api.json<{ identity?: string }>(`/archivist/v1/merklelogs/${tenant}/leaves/${n}`);
      return at.identity ? api.json<ApiRecord>(recordPath(at.identity)) : undefined;
    },
    positions: (keys) => post("/archivist/v1/vindex/positions", { keys }),
  };
}

interface RebuildFlags extends CredentialFlags, AuditFlags {
  url: string;
}

/** `archivist index rebuild --url <service> (credentials) [--mirror dir] [--log-key f]`. */
async function runRebuild(v: RebuildFlags): Promise<number> {
  const base = v.url.replace(/\/+$/, "");
  const tokens = callerTokens(base, v);
  const api = new PublicApi(base, { tokens, maxBytes: MAX_BYTES, timeoutMs: REQUEST_MS });
  const post = poster(base, tokens);
  const self = await api.json<{ identity?: string }>("/archivist/v1/tenancies/self");
  const tenant = String(self.identity ?? "").replace(/^tenant\//, "");
  if (!isUuid(tenant)) throw new Error(`the service names the caller's tenancy "${String(self.identity)}"`);
  const logApi = new PublicApi(`${base}/archivist/v1/merklelogs/${tenant}`, {
    maxBytes: MAX_BYTES,
    timeoutMs: REQUEST_MS,
  });
  const { vkey, pinned } = await logKey(logApi, v.logKey);
  const rebuild: IndexRebuild = await rebuildIndex(
    publicSource(logApi, v.mirror),
    recordSource(api, post, tenant),
    {
      log: `tenant/${tenant}`,
      logVkey: vkey,
      hash: nodeSha256,
      progress: progressLine(),
    },
  );
  const r = rebuild.replay;
  const headline = r?.ok
    ? `index of tenant/${tenant}: rebuilt from ${r.records} records, all ${r.revisions} revisions match, up to ${r.logSize} log entries`
    : `index of tenant/${tenant}: no revision at a log size its checkpoint covers, nothing to rebuild`;
  return report(headline, rebuild, pinned, vkey);
}

function auditCommand(exit: Exit): Cli {
  return new Cli("audit")
    .description(
      "Audit a log's verifiable index from public material only: the index checkpoint verifies with the log's key; the served revisions are all it signs, numbered 0.., at increasing log sizes, under one VRF key; each revision's log root is the log's root at its size (its tiles); with --state, the index output log extends the checkpoint saved there last time. Not whether each index root is the map of the records: that takes the records (index rebuild).",
    )
    .argument("<url>", "the log: …/archivist/v1/merklelogs/<tenant uuid>")
    .option(
      "--log-key <file>",
      "the log's checkpoint key (a vkey), pinned; else the served …/tlog/key, said to be unpinned",
    )
    .option(
      "--state <file>",
      "the index checkpoint saved by the last audit: the output log must extend it; saved anew when all passes",
    )
    .option("--mirror <dir>", "read the log's checkpoint and tiles from a directory `archivist mirror` wrote")
    .addHelpText("after", EXIT_TEXT)
    .action(async (url: string, v: AuditFlags) => {
      let code: number;
      try {
        code = await runAudit(url, v);
      } catch (err) {
        code = failed(err);
      }
      exit(code);
    });
}

function rebuildCommand(exit: Exit): Cli {
  return new Cli("rebuild")
    .description(
      "Rebuild a tenancy's verifiable index from its records, with credentials granted the whole tenancy, and compare it with every published revision: runs the audit, audits the log's tiles, checks every record against its log entry, verifies every key's position (VRF proof), replays the records in log order. Equal, or exit 1 naming the first log size where the index differs.",
    )
    .requiredOption("--url <service>", "the service")
    .option("--token <jwt>", "a bearer token (or ARCHIVIST_TOKEN)")
    .option("--client-id <id>", "client credentials (or ARCHIVIST_CLIENT_ID)")
    .option("--client-secret <secret>", "client credentials (or ARCHIVIST_CLIENT_SECRET)")
    .option(
      "--log-key <file>",
      "the log's checkpoint key (a vkey), pinned; else the served …/tlog/key, said to be unpinned",
    )
    .option("--mirror <dir>", "read the log's checkpoint and tiles from a directory `archivist mirror` wrote")
    .addHelpText("after", EXIT_TEXT)
    .action(async (v: RebuildFlags) => {
      let code: number;
      try {
        code = await runRebuild(v);
      } catch (err) {
        code = failed(err);
      }
      exit(code);
    });
}

const EXIT_TEXT = `
Progress goes to stderr, the verdict to stdout: OK, or FAILED naming the first failure (then
"also:" lines), what was checked and what was not, and whether the log key was pinned.
Exit status: 0 every check passed against the pinned log key (--log-key); 2 every check passed
against the key the service serves (unpinned); 1 a check failed, or the service could not be read
(the cause on the FAILED line); 64 a usage error.`;

export const indexCommand = declaredGroup(
  "index",
  'A log\'s verifiable index (docs/complete-trails.md, "Who can check what").',
  [auditCommand, rebuildCommand],
);
