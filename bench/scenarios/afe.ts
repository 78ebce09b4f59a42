import { call, field } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { reportPhase, runPhase } from "../phase.js";
import { engineOf, type Scenario } from "../scenario.js";
import { SEED_FREE_EVENTS, seedEvents } from "../seed.js";
import { perSecond } from "../stats.js";
import { TARGETS } from "../targets.js";

const TRAIL = "vcon://bench-trail";
const SEARCH = JSON.stringify({ filter: `trails/any(t: t eq '${TRAIL}')`, top: 50 });
// An auditor's usual question: the events of one vCon (a trail with one match, found by index).
const SEARCH_ONE = JSON.stringify({ filter: "trails/any(t: t eq 'vcon://bench-{{n}}')", top: 50 });

/** `afe`: asset-free events, created at saturation, then searched (when search answers). */
export const afe: Scenario = {
  name: "afe",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    const create: RequestTemplate = {
      method: "POST",
      path: "/archivist/v1/events",
      headers,
      body: JSON.stringify({
        attributes: {
          arc_display_type: "vcon_created",
          subject: "vcon://bench-{{n}}",
          payload: "ab".repeat(32),
        },
        trails: [TRAIL, "vcon://bench-{{n}}"],
      }),
    };
    const probe = await call(d.origin, "POST", create.path, {
      token,
      json: { attributes: { a: "b" }, trails: [TRAIL] },
    });
    if (probe.status === 404) {
      ctx.results.na("afe", "create", "endpoint not available");
      return;
    }
    const created = await runPhase(ctx, d, { label: "afe create", requests: [create], concurrency: 64 });
    reportPhase(ctx, "afe", "create", created, "events/s");
    const n = ctx.opts.afeEvents;
    if (n > 0) {
      // A busy trail at scale: copies of one event made through the API, each on TRAIL and a vCon trail of its own.
      const template = await call(d.origin, "POST", create.path, {
        token,
        json: { ...JSON.parse(create.body as string), trails: [TRAIL, "vcon://bench-template"] },
      });
      const id = field(template, "identity")?.split("/").at(-1);
      if (template.status !== 200 || !id)
        throw new Error(`afe: template ${template.status} ${template.text}`);
      ctx.log(`afe: seeding ${n.toLocaleString("en-US")} events on ${TRAIL} into ${engineOf(ctx.opts)}`);
      const ms = await seedEvents(
        d,
        id,
        n,
        (done) => ctx.log(`afe: seeded ${done.toLocaleString("en-US")} / ${n.toLocaleString("en-US")}`),
        SEED_FREE_EVENTS,
      );
      ctx.results.add("afe", "events seeded on the trail", n, "events", undefined, "besides those created");
      ctx.results.add(
        "afe",
        "seed rate (SQL generate_series)",
        perSecond(n, ms),
        "rows/s",
        undefined,
        "indexes built after the inserts",
      );
    }
    // PGlite's seeding restarts the service on another port, which refuses the old one's tokens.
    const searchToken = await d.token();
    const searchHeaders = { ...headers, authorization: `Bearer ${searchToken}` };
    const search = await call(d.origin, "POST", "/archivist/v1/events/search", {
      token: searchToken,
      json: JSON.parse(SEARCH),
    });
    if (search.status !== 200) {
      ctx.results.na(
        "afe",
        "search",
        `endpoint not available (POST /archivist/v1/events/search → ${search.status})`,
      );
      return;
    }
    const searched = await runPhase(ctx, d, {
      label: "afe search",
      requests: [
        { method: "POST", path: "/archivist/v1/events/search", headers: searchHeaders, body: SEARCH },
      ],
      concurrency: 8,
    });
    // Every created and seeded event carries TRAIL: its exact x-total-count is all of them.
    const target = { p99: { value: TARGETS.listPageP99Ms, label: "target p99 (PostgreSQL, 1M)" } };
    reportPhase(ctx, "afe", "search (top 50 on one trail)", searched, "searches/s", target);
    const searchedOne = await runPhase(ctx, d, {
      label: "afe search one vCon",
      requests: [
        { method: "POST", path: "/archivist/v1/events/search", headers: searchHeaders, body: SEARCH_ONE },
      ],
      concurrency: 8,
    });
    reportPhase(ctx, "afe", "search (one vCon's trail)", searchedOne, "searches/s");
  },
};
