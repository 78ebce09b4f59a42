import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { ed25519PublicKey, formatVkey } from "../../src/core/log/note-sign.js";
import { parseCheckpoint } from "../../src/formats/tlog/checkpoint.js";
import { COSIGNATURE_V1 } from "../../src/formats/tlog/keys.js";
import { parseNote } from "../../src/formats/tlog/note.js";
import { tilePath, tilesOf } from "../../src/formats/tlog/tile-path.js";
import { verifyCheckpoint } from "../../src/verify/index.js";
import { type RunningWitness, startWitness } from "../../src/witness/server.js";
import { WitnessState } from "../../src/witness/state.js";
import { call } from "../http.js";
import { reportPhase, runPhase } from "../phase.js";
import { createAsset, postEvent } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { type Deployment, freePort } from "../service.js";
import { summarize } from "../stats.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tenantOf(d: Deployment, token: string, asset: string): Promise<string> {
  const a = await call(d.origin, "GET", `/archivist/v2/${asset}`, { token });
  return String((a.body as { tenant_identity: string }).tenant_identity).replace("tenant/", "");
}

/** Waits until the log's checkpoint reaches `size` entries (and `accept` takes it); its text. */
async function checkpointAt(
  d: Deployment,
  prefix: string,
  size: number,
  deadlineMs: number,
  accept: (note: string) => boolean = () => true,
): Promise<string | undefined> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    const a = await call(d.origin, "GET", `${prefix}/checkpoint`);
    if (a.status === 200 && parseCheckpoint(parseNote(a.text).text).size >= size && accept(a.text))
      return a.text;
    await sleep(10);
  }
  return undefined;
}

/** Tiles and entry bundles of a log of `n` entries, served to 16 clients at once. */
async function tilesServed(ctx: ScenarioContext): Promise<void> {
  const d = await ctx.service();
  const token = await d.token();
  const asset = await createAsset(d, token, "tlog");
  const n = ctx.opts.quick ? 300 : 1200;
  ctx.log(`tlog: posting ${n} events and waiting for their checkpoint`);
  for (let i = 0; i < n; i += 16)
    await Promise.all(
      Array.from({ length: Math.min(16, n - i) }, (_, k) =>
        postEvent(d, token, asset, { bench_n: String(i + k) }),
      ),
    );
  const prefix = `/archivist/v1/merklelogs/${await tenantOf(d, token, asset)}/tlog`;
  const note = await checkpointAt(d, prefix, n, 30_000);
  if (!note) {
    ctx.results.na("tlog", "tiles", "no checkpoint covered the events within 30 s");
    return;
  }
  const size = parseCheckpoint(parseNote(note).text).size;
  const paths = tilesOf(size).map((t) => `${prefix}/${tilePath(t)}`);
  const phase = await runPhase(ctx, d, {
    label: "tlog tiles",
    requests: paths.map((path) => ({ method: "GET", path })),
    concurrency: 16,
  });
  reportPhase(
    ctx,
    "tlog",
    `tiles and entry bundles (${paths.length} of a ${size}-entry log)`,
    phase,
    "tiles/s",
  );
}

/** A record's commit to a checkpoint cosigned by two witnesses (default seal interval). */
async function commitToCosigned(ctx: ScenarioContext): Promise<void> {
  const names = ["bench.witness/one", "bench.witness/two"];
  const dirs = names.map(() => mkdtempSync(join(tmpdir(), "bench-witness-")));
  const seeds = names.map(() => randomBytes(32));
  for (const [i, dir] of dirs.entries())
    writeFileSync(join(dir, "key"), `${(seeds[i] as Buffer).toString("base64")}\n`);
  const ports = [await freePort(), await freePort()];
  const vkeys = names.map((n, i) => formatVkey(n, COSIGNATURE_V1, ed25519PublicKey(seeds[i] as Buffer)));
  const list = vkeys.map((v, i) => `${v} http://127.0.0.1:${ports[i]}`).join(";");
  ctx.log("tlog: a deployment with two witnesses (quorum 2)");
  const d = await ctx.extraService({ ARCHIVIST_WITNESSES: list, ARCHIVIST_WITNESS_QUORUM: "2" });
  const witnesses: RunningWitness[] = [];
  try {
    const token = await d.token();
    const asset = await createAsset(d, token, "tlog-witnessed");
    const prefix = `/archivist/v1/merklelogs/${await tenantOf(d, token, asset)}/tlog`;
    // The log's key names its origin, which the first checkpoint fixes: the witnesses can be told
    // of the log only once that checkpoint exists (the key is a 404 until then).
    if (!(await checkpointAt(d, prefix, 1, 30_000))) throw new Error("the log's first checkpoint never came");
    const logVkey = (await call(d.origin, "GET", `${prefix}/key`)).text.trim();
    const log = pino({ level: "silent" });
    for (const [i, name] of names.entries())
      witnesses.push(
        await startWitness(
          { name, state: new WitnessState(dirs[i] as string), logs: [logVkey], log },
          { host: "127.0.0.1", port: ports[i] as number },
        ),
      );
    const trust = { logVkey, witnessVkeys: vkeys, quorum: 2 };
    const cosigned = (note: string) => verifyCheckpoint(note, trust).ok;
    let size = 1;
    if (!(await checkpointAt(d, prefix, size, 30_000, cosigned)))
      throw new Error("the first checkpoint was never cosigned");
    const samples: number[] = [];
    const rounds = ctx.opts.quick ? 3 : 12;
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await postEvent(d, token, asset, { bench_n: String(i) });
      size++;
      if (!(await checkpointAt(d, prefix, size, 30_000, cosigned)))
        throw new Error(`entry ${size} was never cosigned`);
      samples.push(performance.now() - t0);
    }
    const s = summarize(samples);
    const note = `${rounds} records one at a time; commit window 250 ms, seal interval 1 s (defaults), 2 local witnesses`;
    ctx.results.add("tlog", "record stored → witness-cosigned checkpoint p50", s.p50, "ms", undefined, note);
    ctx.results.add("tlog", "record stored → witness-cosigned checkpoint max", s.max, "ms");
  } finally {
    for (const w of witnesses) await w.close();
    await d.dispose();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** `tlog`: C2SP tiles served per second, and the time from a record to a witness-cosigned checkpoint. */
export const tlog: Scenario = {
  name: "tlog",
  async run(ctx) {
    await tilesServed(ctx);
    await commitToCosigned(ctx);
  },
};
