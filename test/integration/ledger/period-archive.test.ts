import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { leafIndexOfMmrIndex } from "../../../src/formats/mmr/index.js";
import { parseCheckpoint } from "../../../src/formats/tlog/index.js";
import { childDeployments } from "../../helpers/child-deployments.js";
import { buildGo, goRunnable, runGoLines } from "../../helpers/go.js";
import { until } from "../../helpers/poll.js";
import { verifyCli, verifyRecordFiles } from "../../helpers/verify-cli.js";

/*
 * Closed log periods leave the database (docs/scaling.md): `archivist log archive` moves their
 * tiles, entry bundles, MMR nodes and final checkpoints to the blob store (the embedded default's
 * directory), `archivist log drop` drops their node rows; each is SIGKILLed once at a chosen
 * statement of its transaction and run again. Afterwards every receipt of every period, the
 * log's seals and chain, and the tiles (Go's x/mod tlog) still verify, served from the archive.
 */
const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const STALL = fileURLToPath(new URL("../../helpers/stall-statement.ts", import.meta.url));
const d = childDeployments("period-archive");
const dir = d.dir;
const procs: ChildProcess[] = [];
afterAll(() => {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
});

/** `archivist <args>` in a process of its own, from the sources. */
function archivist(args: string[], env: Record<string, string>, preload: string[] = []) {
  const imports = ["tsx", ...preload].flatMap((m) => ["--import", m]);
  const proc = spawn(process.execPath, [...imports, MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.push(proc);
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    proc.once("exit", (code) => resolve({ code, out })),
  );
  return { proc, done };
}

/** Runs `archivist <args>` stalled at the first statement matching `sql`, and SIGKILLs it there. */
async function killedAt(args: string[], env: Record<string, string>, sql: string): Promise<void> {
  const mark = join(dir, `stalled-${randomUUID()}`);
  const run = archivist(args, { ...env, ARCHIVIST_TEST_STALL_SQL: sql, ARCHIVIST_TEST_STALL_MARK: mark }, [
    STALL,
  ]);
  await until(async () => {
    if (run.proc.exitCode !== null)
      throw new Error(`archivist ${args.join(" ")} ended first: ${(await run.done).out}`);
    return existsSync(mark) ? true : undefined;
  }, 60_000);
  run.proc.kill("SIGKILL");
  await run.done;
}

type Rec = Record<string, unknown> & { identity: string; merklelog_entry: { commit: { index: string } } };

describe("closed log periods leave the database", () => {
  it("archive and drop survive a SIGKILL each; every proof is then served from object storage and verifies", async () => {
    const env = await d.env({ ARCHIVIST_LOG_PERIOD_ENTRIES: "120" });
    const first = await d.start("serve", env);
    const asset = await d.asset(first.url, "archive");
    const { tenant } = asset;
    const ids: string[] = [];
    const write = async (n: number) => {
      const batch = await Promise.all(
        Array.from({ length: n }, async (_, j) => {
          const r = await asset.record({ arc_display_type: "a", i: String(ids.length + j) });
          expect(r.status).toBe(200);
          return ((await r.json()) as { identity: string }).identity;
        }),
      );
      ids.push(...batch);
    };
    const periodsAt = async (url: string) =>
      (await (await fetch(`${url}/archivist/v1/merklelogs/${tenant}/tlog/periods`)).json()) as {
        head: string;
        periods: Array<{ period: number; start: number; end?: number }>;
      };
    // Past a full level-0 tile and a second period, in concurrent batches.
    for (let i = 0; i < 320; i += 20) await write(20);
    // A period closes at the log's size when the closer next finds it due, so under load (commits of
    // a few hundred entries) period 0 may end far past 120 and 320 writes close only one period:
    // write on until two have closed. Each close is an entry of its own. Under the whole suite's
    // load the commits behind 320 writes have taken over a minute; what was last seen explains a timeout.
    let seen = "";
    await until(async () => {
      const c = await periodsAt(first.url);
      const size = Number(c.head.split("\n")[1]);
      seen = `size ${size}, periods ${JSON.stringify(c.periods)}`;
      if (size !== ids.length + 1 + c.periods.length - 1) return undefined;
      if (c.periods.length >= 3) return c;
      await write(20);
      return undefined;
    }, 240_000).catch((err: Error) => {
      throw new Error(`${err.message}: last seen ${seen}`);
    });
    await first.kill("SIGTERM");

    // The move, killed after its objects are stored and before they are named; then run again.
    await killedAt(["log", "archive", tenant], env, "insert into tlog_archive");
    const archived = await archivist(["log", "archive", tenant], env).done;
    expect(archived, archived.out).toMatchObject({ code: 0 });
    expect(archived.out).toMatch(/periods 0, 1(, \d+)* archived \(\d+ objects stored\)/);
    // The drop, killed between its two deletes; then run again.
    await killedAt(["log", "drop", tenant], env, "delete from mmr_nodes");
    const dropped = await archivist(["log", "drop", tenant], env).done;
    expect(dropped, dropped.out).toMatchObject({ code: 0 });
    const counts = /\((\d+) tree nodes, (\d+) MMR nodes\)/.exec(dropped.out);
    expect(Number(counts?.[1])).toBeGreaterThan(200);
    expect(Number(counts?.[2])).toBeGreaterThan(200);
    const listed = await archivist(["log", "periods", tenant, "--json"], env).done;
    const periods = JSON.parse(listed.out) as Array<{ period: number; end?: number; dropped_at?: string }>;
    expect(periods.filter((p) => p.end !== undefined).every((p) => p.dropped_at)).toBe(true);

    // Every proof is served again, now from the archive for the closed periods.
    const second = await d.start("serve", env);
    const t2 = await d.token(second.url);
    const auth = { authorization: `Bearer ${t2}` };
    const keys = join(dir, "keys.cbor");
    writeFileSync(
      keys,
      new Uint8Array(await (await fetch(`${second.url}/.well-known/scitt-keys`)).arrayBuffer()),
    );
    const prefix = `${second.url}/archivist/v1/merklelogs/${tenant}/tlog`;
    writeFileSync(join(dir, "log.vkey"), await (await fetch(`${prefix}/key`)).text());
    const records: Rec[] = [];
    for (const id of ids) {
      const record = (await (
        await fetch(`${second.url}/archivist/v2/${id}`, { headers: auth })
      ).json()) as Rec;
      records.push(record);
      const [, a, , e] = id.split("/");
      for (const profile of ["", "?profile=rfc9162"]) {
        const receipt = await fetch(`${second.url}/archivist/v1/receipts/assets/${a}/events/${e}${profile}`, {
          headers: auth,
        });
        expect(receipt.status, `${id} ${profile}: ${await receipt.clone().text()}`).toBe(200);
        const v = await verifyRecordFiles(dir, record, {
          receipt: new Uint8Array(await receipt.arrayBuffer()),
          keys,
        });
        expect(v, `${id} ${profile}: ${v.out}`).toMatchObject({ code: 0 });
      }
    }
    const proof = await fetch(`${second.url}/archivist/v1/tlog-proofs/${ids[0]}`, { headers: auth });
    expect(proof.status).toBe(200);
    const tp = await verifyRecordFiles(dir, records[0], {
      tlogProof: await proof.text(),
      logKey: join(dir, "log.vkey"),
    });
    expect(tp, tp.out).toMatchObject({ code: 0 });
    // Every seal (the MMR's consistency proofs reach into the archive) and the chain of periods.
    const log = await verifyCli([
      "--log",
      tenant,
      "--url",
      second.url,
      "--keys",
      keys,
      "--log-key",
      join(dir, "log.vkey"),
    ]);
    expect(log, log.out).toMatchObject({ code: 0 });
    expect(log.out).toMatch(/periods chain/);
    // Tiles and the final checkpoint come from object storage, cacheable for ever.
    const tile = await fetch(`${prefix}/tile/0/000`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get("cache-control")).toMatch(/immutable/);
    expect((await tile.arrayBuffer()).byteLength).toBe(256 * 32);
    const final0 = await fetch(`${prefix}/periods/0/checkpoint`);
    expect(final0.status).toBe(200);
    expect(final0.headers.get("cache-control")).toMatch(/immutable/);
    const final0Note = await final0.text();
    const chain = await periodsAt(second.url);
    expect(parseCheckpoint(final0Note.slice(0, final0Note.indexOf("\n\n") + 1)).size).toBe(
      chain.periods[0]?.end,
    );

    if (goRunnable) {
      // Go's x/mod tlog: the tree hash from the tiles, records of every period, consistency with period 0's end.
      const binary = buildGo("tlogcheck");
      const leaves = [];
      for (const k of [0, 150, ids.length - 1]) {
        const mmrIndex = Number(records[k]?.merklelog_entry.commit.index);
        const entry = (await (
          await fetch(`${second.url}/archivist/v1/merklelogs/${tenant}/entries/${mmrIndex}`, {
            headers: auth,
          })
        ).json()) as { leaf: string };
        leaves.push({ index: leafIndexOfMmrIndex(mmrIndex), data: entry.leaf });
      }
      const [out] = await runGoLines<
        unknown,
        { error?: string; tree_hash_ok: boolean; consistency_ok: boolean; inclusion: Array<{ ok: boolean }> }
      >(binary, [
        {
          base: prefix,
          vkey: (await (await fetch(`${prefix}/key`)).text()).trim(),
          checkpoint: chain.head,
          old_checkpoint: final0Note,
          leaves,
        },
      ]);
      expect(out?.error).toBeUndefined();
      expect(out).toMatchObject({ tree_hash_ok: true, consistency_ok: true });
      expect(out?.inclusion.every((i) => i.ok)).toBe(true);
    }
  }, 420_000);
});
