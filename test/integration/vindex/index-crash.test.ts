import { describe, expect, it } from "vitest";
import { leafIndexOfMmrIndex } from "../../../src/formats/mmr/indices.js";
import type { IndexLookup } from "../../../src/formats/vindex/lookup-format.js";
import { verifyLookup } from "../../../src/verify/vindex/lookup.js";
import { childDeployments } from "../../helpers/child-deployments.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { vconEvent } from "../../helpers/vcon-event.js";

// Issue 72, "Durable": the index is derived from the log. Killed with SIGKILL at any point of its
// work, the service restarts and every vCon's list in the index is exactly its records' log
// entries, proven against the log key.
const d = childDeployments("index-crash");
const VCONS = Array.from({ length: 4 }, () => crypto.randomUUID());

type Headers = Record<string, string>;

async function postLoad(url: string, headers: Headers, asset: string, n: number) {
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${url}/archivist/v2/${asset}/events`, {
        method: "POST",
        headers,
        body: JSON.stringify(vconEvent(VCONS[i % VCONS.length] as string, `op_${i}`, "2025-05-01")),
      }).catch(() => undefined),
    ),
  );
}

/** The log entries of the vCon's records, as the records themselves say (once all are committed). */
async function entriesOf(url: string, headers: Headers, asset: string, vcon: string): Promise<number[]> {
  const res = await fetch(
    `${url}/archivist/v2/${asset}/events?page_size=500&event_attributes.subject=${encodeURIComponent(`vcon://${vcon}`)}`,
    { headers },
  );
  const list = (await res.json()) as { events: Array<{ merklelog_entry?: { commit?: { index?: string } } }> };
  return list.events
    .map((e) => leafIndexOfMmrIndex(Number(e.merklelog_entry?.commit?.index)))
    .sort((a, b) => a - b);
}

describe(`the index killed mid-work (${testEngine()})`, () => {
  it("comes back whole: every vCon's list is its records' log entries, proven", async () => {
    const env = await d.env({ ARCHIVIST_SEAL_INTERVAL_MS: "50", ARCHIVIST_COMMIT_MAX_DELAY_MS: "10" });
    let child = await d.start("serve", env);
    let headers: Headers = {
      authorization: `Bearer ${await d.token(child.url)}`,
      "content-type": "application/json",
    };
    const asset = (
      (await (
        await fetch(`${child.url}/archivist/v2/assets`, {
          method: "POST",
          headers,
          body: JSON.stringify({ attributes: { arc_display_type: "vcon" } }),
        })
      ).json()) as { identity: string }
    ).identity;
    // Three kills, each while records are posted, committed, sealed and indexed.
    for (let round = 0; round < 3; round++) {
      const load = postLoad(child.url, headers, asset, 120);
      await new Promise((r) => setTimeout(r, 150 + 200 * round));
      await child.kill("SIGKILL");
      await load;
      child = await d.start("serve", env);
      headers = { authorization: `Bearer ${await d.token(child.url)}`, "content-type": "application/json" };
    }
    const url = child.url;
    const tenant = (
      (await (await fetch(`${url}/archivist/v1/tenancies/self`, { headers })).json()) as { identity: string }
    ).identity.replace("tenant/", "");
    // A log that never answers says why: the last service's own log lines (a held log names itself).
    const told = (err: unknown) => {
      throw new Error(`${(err as Error).message}; the service logged: ${child.output().slice(-3000)}`);
    };
    const logKey = await until(async () => {
      const r = await fetch(`${url}/archivist/v1/merklelogs/${tenant}/tlog/key`);
      return r.status === 200 ? (await r.text()).trim() : undefined;
    }, 60_000).catch(told);
    for (const vcon of VCONS) {
      const { lookup, entries } = await until(async () => {
        const r = await fetch(`${url}/archivist/v1/vindex/lookup?key=vcon://${vcon}`, { headers });
        if (r.status !== 200) return undefined;
        const body = (await r.json()) as IndexLookup;
        const listed = await entriesOf(url, headers, asset, vcon);
        // Every record committed and under the revision: then the index must list exactly them.
        const covered = listed.every((i) => Number.isInteger(i) && i < body.revision.log_size);
        return covered ? { lookup: body, entries: listed } : undefined;
      }, 90_000).catch(told);
      expect(lookup.indices).toEqual(entries);
      expect(verifyLookup(lookup, logKey)).toMatchObject({ ok: true, indices: entries });
    }
  }, 240_000);
});
