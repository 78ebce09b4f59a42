import { describe, expect, it } from "vitest";
import { childDeployments } from "../../helpers/child-deployments.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { REDIS_URL, redisUp } from "../conserver/redis-env.js";

const d = childDeployments("crash");
const envFor = () => d.env({ ARCHIVIST_ANCHOR_INTERVAL_MS: "300" });

type Headers = Record<string, string>;

async function createAsset(
  url: string,
  headers: Headers,
  displayType: string,
): Promise<{ identity: string }> {
  const res = await fetch(`${url}/archivist/v2/assets`, {
    method: "POST",
    headers,
    body: JSON.stringify({ attributes: { arc_display_type: displayType } }),
  });
  return (await res.json()) as { identity: string };
}

function postEvent(url: string, headers: Headers, assetIdentity: string, attributes: Record<string, string>) {
  return fetch(`${url}/archivist/v2/${assetIdentity}/events`, {
    method: "POST",
    headers,
    body: JSON.stringify({ operation: "Record", behaviour: "RecordEvidence", event_attributes: attributes }),
  });
}

describe("crash safety", () => {
  it("loses no accepted record when killed with SIGKILL mid-stream; the log verifies after restart", async () => {
    const env = await envFor();
    const first = await d.start("serve", env);
    const token = await d.token(first.url);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const asset = await createAsset(first.url, headers, "crash");
    const accepted: string[] = [];
    const post = async (i: number) => {
      try {
        const r = await postEvent(first.url, headers, asset.identity, {
          arc_display_type: "n",
          i: String(i),
        });
        if (r.status === 200) accepted.push(((await r.json()) as { identity: string }).identity);
      } catch {
        // The process died under this request: it was never answered, so never accepted.
      }
    };
    const load = Promise.all(Array.from({ length: 400 }, (_, i) => post(i)));
    await until(async () => (accepted.length >= 100 ? true : undefined), 60_000, 5).catch((err: Error) => {
      throw new Error(`${err.message}: ${accepted.length} accepted`);
    });
    await first.kill("SIGKILL");
    await load;
    expect(accepted.length).toBeGreaterThanOrEqual(100);
    const second = await d.start("serve", env);
    const t2 = await d.token(second.url);
    for (const id of accepted) {
      const e = await until(async () => {
        const r = (await (
          await fetch(`${second.url}/archivist/v2/${id}`, { headers: { authorization: `Bearer ${t2}` } })
        ).json()) as { confirmation_status: string };
        return ["COMMITTED", "CONFIRMED", "UNEQUIVOCAL"].includes(r.confirmation_status) ? r : undefined;
      }, 60_000);
      expect(e.confirmation_status).not.toBe("STORED");
    }
    const tenant = (
      (await (
        await fetch(`${second.url}/archivist/v1/tenancies/self`, {
          headers: { authorization: `Bearer ${t2}` },
        })
      ).json()) as { identity: string }
    ).identity.replace("tenant/", "");
    await until(async () => {
      const r = (await (await fetch(`${second.url}/archivist/v1/merklelogs/${tenant}/seals`)).json()) as {
        mmr_sizes: number[];
      };
      return r.mmr_sizes.length > 0 ? r : undefined;
    });
    const { verifyCommand } = await import("../../../src/cli/verify.js");
    // Keys fetched from the service itself: self-consistent (2), every seal signed and consistent.
    expect(await verifyCommand.run(["--log", tenant, "--url", second.url])).toBe(2);
  }, 120_000);
});

// Scale-out needs PostgreSQL (PGlite belongs to one process), so this suite exists only in the postgres project.
if (testEngine() === "postgres")
  describe("two worker processes on one PostgreSQL", () => {
    it("never fork a log: every event is committed once, seals stay consistent", async () => {
      const env = await envFor();
      const api = await d.start("serve", { ...env, ARCHIVIST_NO_WORKERS: "true" });
      const _w1 = await d.start("worker", env);
      const _w2 = await d.start("worker", env);
      const token = await d.token(api.url);
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const asset = await createAsset(api.url, headers, "two");
      const ids: string[] = [];
      for (let round = 0; round < 10; round++) {
        const batch = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            postEvent(api.url, headers, asset.identity, { arc_display_type: "w", i: `${round}-${i}` }).then(
              async (r) => ((await r.json()) as { identity: string }).identity,
            ),
          ),
        );
        ids.push(...batch);
      }
      const all = await until(async () => {
        const r = (await (
          await fetch(
            `${api.url}/archivist/v2/${asset.identity}/events?page_size=500&minimum_trust=CONFIRMED`,
            { headers },
          )
        ).json()) as { events: Array<{ merklelog_entry: { commit: { index: string } } }> };
        return r.events.length === ids.length + 1 ? r.events : undefined;
      }, 60_000);
      const indices = all.map((e) => Number(e.merklelog_entry.commit.index));
      expect(new Set(indices).size).toBe(indices.length);
      const tenant = (
        (await (await fetch(`${api.url}/archivist/v1/tenancies/self`, { headers })).json()) as {
          identity: string;
        }
      ).identity.replace("tenant/", "");
      const { verifyCommand } = await import("../../../src/cli/verify.js");
      // Keys fetched from the service itself: self-consistent (2), every seal signed and consistent.
      expect(await verifyCommand.run(["--log", tenant, "--url", api.url])).toBe(2);
    }, 120_000);
  });

// Needs PostgreSQL (two processes) and Redis; in CI a missing Redis fails (redisUp throws).
if (testEngine() === "postgres")
  describe("an API-only process and a worker process", () => {
    it("wake each other through Redis: records commit long before the worker's next sweep", async () => {
      expect(await redisUp()).toBe(true);
      // The workers' sweep runs once a minute here: only a wake-up can commit within seconds.
      // A sealer every 10 ms holds the log's lock often: a woken committer that finds it taken
      // must try again rather than leave the records to the sweep.
      const env = {
        ...(await envFor()),
        ARCHIVIST_COMMIT_MAX_DELAY_MS: "60000",
        ARCHIVIST_SEAL_INTERVAL_MS: "10",
        REDIS_URL,
      };
      const api = await d.start("serve", { ...env, ARCHIVIST_NO_WORKERS: "true" });
      const token = await d.token(api.url);
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const asset = await createAsset(api.url, headers, "woken");
      const _worker = await d.start("worker", env);
      const committed = async (id: string, ms: number) =>
        until(async () => {
          const r = (await (await fetch(`${api.url}/archivist/v2/${id}`, { headers })).json()) as {
            confirmation_status: string;
          };
          return r.confirmation_status === "STORED" ? undefined : r;
        }, ms);
      // The worker's first sweep at its start commits the asset's NewAsset event: it is up.
      const first = (await (
        await fetch(`${api.url}/archivist/v2/${asset.identity}/events?page_size=1`, { headers })
      ).json()) as { events: Array<{ identity: string }> };
      await committed(first.events[0]?.identity ?? "", 30_000);
      const started = Date.now();
      const posted = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const r = await postEvent(api.url, headers, asset.identity, {
            arc_display_type: "woken",
            i: String(i),
          });
          return ((await r.json()) as { identity: string }).identity;
        }),
      );
      for (const id of posted) await committed(id, 20_000);
      expect(Date.now() - started).toBeLessThan(45_000);
    }, 120_000);
  });
