import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logCommand } from "../../../src/cli/log.js";
import { leafIndexOfMmrIndex } from "../../../src/formats/mmr/index.js";
import { parseCheckpoint } from "../../../src/formats/tlog/index.js";
import { periodLinkLeaf } from "../../../src/formats/tlog/period-link.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { runCli } from "../../helpers/cli-output.js";
import { testEngine } from "../../helpers/databases.js";
import { buildGo, goRunnable, runGoLines } from "../../helpers/go.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { verifyCli, verifyRecordFiles } from "../../helpers/verify-cli.js";

/*
 * Log periods (docs/scaling.md): a tenancy's log closes at a size, on command, while records
 * stream in; every record is committed once, every receipt of every period verifies with the
 * CLI, `archivist verify --log` follows the chain of period roots, and Go's x/mod tlog reads the
 * tiles across the boundary.
 */
let s: TestService;
let token: string;
const dir = mkdtempSync(join(tmpdir(), "log-periods-"));
beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100", ARCHIVIST_LOG_PERIOD_ENTRIES: "40" });
  token = await s.token(s.a);
}, 120_000);
afterAll(() => s?.stop());

interface PeriodsAnswer {
  head: string;
  periods: Array<{
    period: number;
    start: number;
    end?: number;
    checkpoint?: string;
    consistency?: string[];
  }>;
}

async function post(asset: string, i: number): Promise<string> {
  const r = await postEvent(s, token, asset, evidence({ arc_display_type: "p", i: String(i) }));
  expect(r.status).toBe(200);
  return ((await r.json()) as { identity: string }).identity;
}

type Rec = Record<string, unknown> & {
  merklelog_entry: { commit: { index: string } };
  confirmation_status: string;
};

const settled = (id: string) =>
  until(async () => {
    const e = (await (await s.api(`/archivist/v2/${id}`, { token })).json()) as Rec;
    return ["CONFIRMED", "UNEQUIVOCAL"].includes(e.confirmation_status) ? e : undefined;
  }, 60_000);

describe("log periods", () => {
  it("close while records stream in: nothing lost or duplicated, every receipt and the chain verify", async () => {
    const { asset, tenant, prefix } = await tenancyLog(s, token, "periods");
    const ids: string[] = [];
    // Streams of concurrent writes; periods close by size (40 entries) and, once, by command
    // in the middle of a stream.
    let explicit: Awaited<ReturnType<typeof closeLogPeriod>>;
    const more: Array<Promise<string>> = [];
    for (let round = 0; round < 6; round++) {
      const writes = Promise.all(Array.from({ length: 25 }, (_, i) => post(asset.identity, round * 25 + i)));
      if (round === 3) {
        // The size rule may have closed a period a moment ago: a period holding only its link
        // entry cannot close, so ask again until this stream's records reach the log. On a loaded
        // machine the size rule may close one after the whole stream is in: then no record of this
        // stream is left to come, and each refused try writes one more for the period to hold.
        const keys = await loadSealKeys(s.service.ctx);
        explicit = await until(async () => {
          const closed = await s.service.ctx.db.transaction((tx) =>
            closeLogPeriod(tx, tenant, keys, s.service.ctx.logGuard),
          );
          if (!closed) more.push(post(asset.identity, 1_000 + more.length));
          return closed;
        }, 30_000);
      }
      ids.push(...(await writes));
    }
    ids.push(...(await Promise.all(more)));
    expect(explicit).toBeDefined();
    const records = [];
    for (const id of ids) records.push(await settled(id));
    const indices = records.map((r) => Number(r.merklelog_entry.commit.index));
    expect(new Set(indices).size).toBe(ids.length);
    // Past the writes: at least the size rule and the command closed periods.
    let last: PeriodsAnswer | undefined;
    const chain = await until(async () => {
      const c = (await (await s.api(`${prefix}/periods`)).json()) as PeriodsAnswer;
      const head = parseCheckpoint(c.head.slice(0, c.head.indexOf("\n\n") + 1));
      const lastEnd = c.periods.at(-2)?.end ?? 0;
      last = c;
      return c.periods.length >= 3 && head.size > lastEnd ? c : undefined;
    }, 30_000).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${JSON.stringify(last?.periods.map((p) => [p.start, p.end]))} ${last?.head}`,
      );
    });
    expect(chain.periods.map((p) => p.period)).toEqual(chain.periods.map((_, i) => i));
    for (const [k, p] of chain.periods.entries()) {
      if (k > 0) expect(p.start).toBe(chain.periods[k - 1]?.end);
      if (k < chain.periods.length - 1) expect(p.checkpoint).toMatch(/^\S+\/tlog\n\d+\n/);
    }
    // Every entry is a record or a link: records + the asset's creation + one link per closed period.
    const sizeAt = (await s.api(`/archivist/v1/merklelogs/${tenant}/seals/latest`)).ok;
    expect(sizeAt).toBe(true);
    const leafIndices = new Set(indices.map(leafIndexOfMmrIndex));
    const links = chain.periods.slice(1).map((p) => p.start);
    for (const l of links) expect(leafIndices.has(l), `entry ${l} is a link`).toBe(false);

    // Every receipt of every period verifies with the CLI, keys pinned.
    const keys = join(dir, "keys.cbor");
    writeFileSync(keys, new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    for (const [k, r] of records.entries()) {
      const [, a, , e] = (ids[k] as string).split("/");
      const receipt = await s.api(`/archivist/v1/receipts/assets/${a}/events/${e}`, { token });
      expect(receipt.status).toBe(200);
      const v = await verifyRecordFiles(dir, r, {
        receipt: new Uint8Array(await receipt.arrayBuffer()),
        keys,
      });
      expect(v, `${ids[k]}: ${v.out}`).toMatchObject({ code: 0 });
    }
    // A tlog-proof of a record of the first (closed) period, against the log's key from a file.
    const firstId = ids[0] as string;
    const proof = await until(async () => {
      const r = await s.api(`/archivist/v1/tlog-proofs/${firstId}`, { token });
      return r.status === 200 ? r.text() : undefined;
    });
    writeFileSync(join(dir, "log.vkey"), await (await s.api(`${prefix}/key`)).text());
    const tp = await verifyRecordFiles(dir, records[0], { tlogProof: proof, logKey: join(dir, "log.vkey") });
    expect(tp, tp.out).toMatchObject({ code: 0 });

    // The whole log: every seal, and the chain of period roots.
    const log = await verifyCli([
      "--log",
      tenant,
      "--url",
      s.url,
      "--keys",
      keys,
      "--log-key",
      join(dir, "log.vkey"),
    ]);
    expect(log, log.out).toMatchObject({ code: 0 });
    expect(log.out).toMatch(new RegExp(`its ${chain.periods.length} periods chain|its \\d+ periods chain`));

    // A chain the service altered fails: period 1's final checkpoint swapped for period 0's.
    const { verifyPeriodChain } = await import("../../../src/verify/tlog/period.js");
    const vkey = (await (await s.api(`${prefix}/key`)).text()).trim();
    const asChain = (c: PeriodsAnswer) => ({
      head: c.head,
      periods: c.periods.map((p) => ({
        period: p.period,
        start: p.start,
        end: p.end,
        checkpoint: p.checkpoint,
        consistency: p.consistency,
        linkInclusion: (p as { link_inclusion?: string[] }).link_inclusion,
      })),
    });
    expect(verifyPeriodChain(asChain(chain), { logVkey: vkey, witnessVkeys: [], quorum: 0 }).ok).toBe(true);
    const swapped = asChain(chain);
    (swapped.periods[1] as { checkpoint?: string }).checkpoint = swapped.periods[0]?.checkpoint;
    expect(verifyPeriodChain(swapped, { logVkey: vkey, witnessVkeys: [], quorum: 0 }).ok).toBe(false);
  }, 240_000);

  it.runIf(goRunnable)(
    "Go's x/mod tlog reads the tiles across a period boundary",
    async () => {
      const binary = buildGo("tlogcheck");
      const { asset, tenant, prefix } = await tenancyLog(s, token, "go");
      // More than a full level-0 tile in all; periods of 40 entries close on the way.
      const ids: string[] = [];
      for (let i = 0; i < 300; i += 25)
        ids.push(...(await Promise.all(Array.from({ length: 25 }, (_, j) => post(asset.identity, i + j)))));
      for (const id of [ids[0] as string, ids.at(-1) as string]) await settled(id);
      const chain = await until(async () => {
        const c = (await (await s.api(`${prefix}/periods`)).json()) as PeriodsAnswer;
        const size = Number(c.head.split("\n")[1]);
        return size >= 301 + c.periods.length - 1 && (c.periods.at(-2)?.end ?? 0) < size ? c : undefined;
      }, 60_000);
      expect(chain.periods.length).toBeGreaterThan(2);
      const p0 = chain.periods[0] as Required<PeriodsAnswer["periods"][0]>;
      const final0 = p0.checkpoint;
      const final0cp = parseCheckpoint(final0.slice(0, final0.indexOf("\n\n") + 1));
      const vkey = (await (await s.api(`${prefix}/key`)).text()).trim();
      const leaves = [];
      for (const id of [ids[0] as string, ids[100] as string, ids.at(-1) as string]) {
        const r = await settled(id);
        const mmrIndex = Number(r.merklelog_entry.commit.index);
        const entry = (await (
          await s.api(`/archivist/v1/merklelogs/${tenant}/entries/${mmrIndex}`, { token })
        ).json()) as {
          leaf: string;
        };
        leaves.push({ index: leafIndexOfMmrIndex(mmrIndex), data: entry.leaf });
      }
      // Period 1's link entry: its data is the link leaf, made from period 0's final checkpoint.
      const link = periodLinkLeaf({
        period: 1,
        origin: final0cp.origin,
        size: final0cp.size,
        root: final0cp.root,
      });
      leaves.push({ index: p0.end, data: Buffer.from(link).toString("hex") });
      const [out] = await runGoLines<
        unknown,
        {
          error?: string;
          tree_hash_ok: boolean;
          consistency_ok: boolean;
          size: number;
          inclusion: Array<{ ok: boolean }>;
        }
      >(binary, [
        { base: `${s.url}${prefix}`, vkey, checkpoint: chain.head, old_checkpoint: final0, leaves },
      ]);
      expect(out?.error).toBeUndefined();
      expect(out).toMatchObject({ tree_hash_ok: true, consistency_ok: true });
      expect(out?.size).toBeGreaterThan(256);
      expect(out?.inclusion.every((i) => i.ok)).toBe(true);
    },
    240_000,
  );

  it.runIf(testEngine() === "postgres")(
    "`archivist log close` closes a period from another process on PostgreSQL",
    async () => {
      const { asset, tenant } = await tenancyLog(s, token, "cmd");
      const id = await post(asset.identity, 0);
      await settled(id);
      const env = {
        DATABASE_URL: String(s.service.ctx.config.databaseUrl),
        BASE_URL: s.url,
        ARCHIVIST_KEY_DIR: s.service.ctx.config.keyDir,
      };
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const closed = await runCli((a) => logCommand.run(a), ["close", asset.tenant_identity]);
        expect(closed, closed.err).toMatchObject({ code: 0 });
        expect(closed.out).toMatch(/period \d+ closed at \d+ entries/);
        const listed = await runCli((a) => logCommand.run(a), ["periods", tenant, "--json"]);
        const periods = JSON.parse(listed.out) as Array<{ period: number; end?: number }>;
        expect(periods.length).toBeGreaterThanOrEqual(2);
        expect(periods.at(-1)?.end).toBeUndefined();
      } finally {
        process.env = saved;
      }
      const log = await verifyCli(["--log", tenant, "--url", s.url]);
      expect(log, log.out).toMatchObject({ code: 2 });
      expect(log.out).toMatch(/periods chain/);
    },
    120_000,
  );
});

describe("log periods by age", () => {
  it("close a period older than ARCHIVIST_LOG_PERIOD_AGE_MS once it holds an entry past its link, and not before", async () => {
    const aged = await startTestService({
      ARCHIVIST_SEAL_INTERVAL_MS: "100",
      ARCHIVIST_LOG_PERIOD_AGE_MS: "1500",
    });
    try {
      const t = await aged.token(aged.a);
      const { asset, tenant } = await tenancyLog(aged, t, "age");
      const periods = async () => {
        const r = await aged.api(`/archivist/v1/merklelogs/${tenant}/tlog/periods`);
        // No checkpoint yet: 404.
        return r.status === 200 ? ((await r.json()) as { periods: Array<{ end?: number }> }).periods : [];
      };
      await until(async () => ((await periods()).length === 2 ? true : undefined), 30_000);
      // Period 1 holds only its link: however old it grows, it stays open.
      await new Promise((r) => setTimeout(r, 2500));
      expect(await periods()).toHaveLength(2);
      await postEvent(aged, t, asset.identity, evidence({ arc_display_type: "late" }));
      await until(async () => ((await periods()).length === 3 ? true : undefined), 30_000);
    } finally {
      await aged.stop();
    }
  }, 120_000);
});
