import { call, field } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { reportPhase, runPhase } from "../phase.js";
import { createAsset, postEvent } from "../records.js";
import { engineOf, type Scenario } from "../scenario.js";
import { seedEvents } from "../seed.js";
import type { Deployment } from "../service.js";
import { perSecond } from "../stats.js";
import { TARGETS } from "../targets.js";

const BASE = "/archivist/v2/assets/-/events";
// bench_kind takes 10 values: the filter matches a tenth of the seeded events.
const FIRST = `${BASE}?event_attributes.bench_kind=k3&page_size=50`;
// 206 is a full page too: the list says so when its total passes the server's result limit.
const OK = [200, 206];

async function templateEvent(d: Deployment, token: string): Promise<string> {
  const asset = await createAsset(d, token, "list");
  const id = (await postEvent(d, token, asset, { arc_display_type: "vcon_created" })).split("/").at(-1);
  return id as string;
}

/** Follows next_page_token from the first page, returning the path of each page reached. */
async function pagePaths(d: Deployment, token: string, pages: number): Promise<string[]> {
  const paths = [FIRST];
  let path = FIRST;
  while (paths.length < pages) {
    const a = await call(d.origin, "GET", path, { token });
    const next = field(a, "next_page_token");
    if (!OK.includes(a.status)) throw new Error(`list: ${a.status} ${a.text.slice(0, 200)}`);
    if (!next) break;
    path = `${BASE}?page_token=${encodeURIComponent(next)}`;
    paths.push(path);
  }
  return paths;
}

/** `list`: pages and counts of a filtered event list over many events seeded straight into the database. */
export const list: Scenario = {
  name: "list",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const n = ctx.opts.listEvents;
    const template = await templateEvent(d, token);
    ctx.log(`list: seeding ${n.toLocaleString("en-US")} events into ${engineOf(ctx.opts)}`);
    const ms = await seedEvents(d, template, n, (done) =>
      ctx.log(`list: seeded ${done.toLocaleString("en-US")} / ${n.toLocaleString("en-US")}`),
    );
    ctx.results.add("list", "events seeded", n, "events", undefined, "the filter bench_kind=k3 matches 1/10");
    ctx.results.add(
      "list",
      "seed rate (SQL generate_series)",
      perSecond(n, ms),
      "rows/s",
      undefined,
      "indexes built after the inserts",
    );
    const auth = { authorization: `Bearer ${await d.token()}` };
    const paths = await pagePaths(d, await d.token(), 20);
    const get = (path: string, headers: Record<string, string> = auth): RequestTemplate => ({
      method: "GET",
      path,
      headers,
    });
    const concurrency = ctx.opts.quick ? 2 : 4;
    const target = { value: TARGETS.listPageP99Ms, label: "target p99 (PostgreSQL, 1M)" };
    // The first page also counts matches up to the result limit (for 206): measured apart from later pages.
    const phases: Array<[string, string, RequestTemplate[]]> = [
      ["first page (50 events)", "list first page", [get(FIRST)]],
      ["next pages (page_token)", "list next pages", paths.slice(1).map((p) => get(p))],
      [
        "first page + x-total-count",
        "list counts",
        [get(FIRST, { ...auth, "x-request-total-count": "true" })],
      ],
    ];
    for (const [name, label, requests] of phases) {
      if (requests.length === 0) continue;
      const phase = await runPhase(ctx, d, { label, requests, concurrency, okStatus: OK });
      reportPhase(ctx, "list", name, phase, "requests/s", { p99: target });
    }
  },
};
