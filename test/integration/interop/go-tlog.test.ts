import { describe, expect, it } from "vitest";
import { leafIndexOfMmrIndex } from "../../../src/formats/mmr/index.js";
import { goAndService, goRunnable, runGoLines } from "../../helpers/go.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { untilSealed } from "../../helpers/vcon-event.js";

/*
 * The service's C2SP log read by Go's reference code (golang.org/x/mod/sumdb/note and tlog, from
 * Debian, GOPATH mode): the checkpoint's Ed25519 signature (the ML-DSA-44 one left unverified, as
 * note.Open does with keys it does not know), the tree hash from the tiles, each record's
 * inclusion, and consistency with an older checkpoint.
 */
interface Out {
  origin: string;
  size: number;
  unverified_signatures: number;
  tree_hash_ok: boolean;
  inclusion: Array<{ index: number; ok: boolean; error?: string }>;
  consistency_ok: boolean;
  error?: string;
}

const suite = goAndService("tlogcheck", { ARCHIVIST_SEAL_INTERVAL_MS: "100" });

async function addEvents(asset: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  // In batches: the log commits them together, as it would a busy service's.
  for (let i = 0; i < n; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, j) =>
        postEvent(suite.s, suite.token, asset, evidence({ arc_display_type: `e${i + j}` })),
      ),
    );
    for (const r of batch) ids.push(((await r.json()) as { identity: string }).identity);
  }
  await untilSealed(suite.s, suite.token, asset);
  return ids;
}

describe.runIf(goRunnable)("Go's sumdb/note and sumdb/tlog read the service's log", () => {
  it("verify the checkpoint, the tiles, every record's inclusion and consistency with an older checkpoint", async () => {
    const { asset: a, tenant, prefix } = await tenancyLog(suite.s, suite.token, "go");
    const first = await addEvents(a.identity, 3);
    // The asset's creation is the log's first entry.
    const checkpointCovering = (entries: number) =>
      until(async () => {
        const text = await (await suite.s.api(`${prefix}/checkpoint`)).text();
        return Number(text.split("\n")[1]) >= entries ? text : undefined;
      }, 30_000);
    const old = await checkpointCovering(1 + first.length);
    // Enough entries for a full level-0 tile and a partial one after it.
    const later = await addEvents(a.identity, 260);
    const checkpoint = await checkpointCovering(1 + first.length + later.length);
    const vkey = (await (await suite.s.api(`${prefix}/key`)).text()).trim();
    const leaves = [];
    for (const id of [...first, later[0] as string, later[259] as string]) {
      const record = (await (await suite.s.api(`/archivist/v2/${id}`, { token: suite.token })).json()) as {
        merklelog_entry: { commit: { index: string } };
      };
      const mmrIndex = Number(record.merklelog_entry.commit.index);
      const entry = (await (
        await suite.s.api(`/archivist/v1/merklelogs/${tenant}/entries/${mmrIndex}`, { token: suite.token })
      ).json()) as {
        leaf: string;
      };
      leaves.push({ index: leafIndexOfMmrIndex(mmrIndex), data: entry.leaf });
    }
    const wrong = { index: (leaves[0] as { index: number }).index, data: "00".repeat(32) };
    const [out] = await runGoLines<unknown, Out>(suite.binary, [
      { base: `${suite.s.url}${prefix}`, vkey, checkpoint, old_checkpoint: old, leaves: [...leaves, wrong] },
    ]);
    expect(out?.error).toBeUndefined();
    expect(out).toMatchObject({ tree_hash_ok: true, consistency_ok: true, unverified_signatures: 1 });
    expect(out?.size).toBeGreaterThan(256);
    expect(out?.inclusion.slice(0, leaves.length).every((i) => i.ok)).toBe(true);
    expect(out?.inclusion.at(-1)).toMatchObject({ ok: false });
    // A checkpoint whose root was changed is refused by note.Open (the signature no longer holds).
    const lines = checkpoint.split("\n");
    lines[2] = Buffer.alloc(32, 1).toString("base64");
    const [tampered] = await runGoLines<unknown, Out>(suite.binary, [
      { base: `${suite.s.url}${prefix}`, vkey, checkpoint: lines.join("\n"), old_checkpoint: "", leaves: [] },
    ]);
    expect(tampered?.error).toMatch(/^checkpoint: /);
  }, 120_000);
});
