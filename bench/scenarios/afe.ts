import { call } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { reportPhase, runPhase } from "../phase.js";
import type { Scenario } from "../scenario.js";

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
    const search = await call(d.origin, "POST", "/archivist/v1/events/search", {
      token,
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
      requests: [{ method: "POST", path: "/archivist/v1/events/search", headers, body: SEARCH }],
      concurrency: 8,
    });
    // Every created event carries TRAIL: its exact x-total-count grows with the create phase.
    reportPhase(ctx, "afe", "search (top 50 on one trail)", searched, "searches/s");
    const searchedOne = await runPhase(ctx, d, {
      label: "afe search one vCon",
      requests: [{ method: "POST", path: "/archivist/v1/events/search", headers, body: SEARCH_ONE }],
      concurrency: 8,
    });
    reportPhase(ctx, "afe", "search (one vCon's trail)", searchedOne, "searches/s");
  },
};
