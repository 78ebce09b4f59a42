import { call, field } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { reportPhase, runPhase } from "../phase.js";
import { engineOf, type Scenario } from "../scenario.js";
import { seedEvents, seededVcon, seedStoredVconEvents } from "../seed.js";
import { perSecond } from "../stats.js";

// Records per vCon: a conversation's trail (created, analysed, consented, shared, …).
const PER_VCON = 20;
const LOOKUPS = 500;
// A lookup with its proof answers in under this at 1M records (issue 72).
const LOOKUP_P99_MS = 20;

/** Polls the index's revisions until one covers `size` log entries; the milliseconds it took. */
async function untilIndexed(origin: string, tenant: string, size: number, log: (l: string) => void) {
  const t0 = performance.now();
  let last = -1;
  for (;;) {
    const r = await call(origin, "GET", `/archivist/v1/merklelogs/${tenant}/vindex/revisions?from=0&to=0`);
    const total = r.status === 200 ? (JSON.parse(r.text) as { size: number }).size : 0;
    const at =
      total > 0
        ? ((
            JSON.parse(
              (
                await call(
                  origin,
                  "GET",
                  `/archivist/v1/merklelogs/${tenant}/vindex/revisions?from=${total - 1}`,
                )
              ).text,
            ) as { revisions: Array<{ log_size: number }> }
          ).revisions[0]?.log_size ?? 0)
        : 0;
    if (at >= size) return performance.now() - t0;
    if (at !== last)
      log(`vindex: indexed ${at.toLocaleString("en-US")} / ${size.toLocaleString("en-US")} entries`);
    last = at;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * `vindex`: the verifiable index at scale (issue 72). Seeds STORED vCon records, lets the service
 * log, seal and index them as it would, then looks up random vCons with their proofs.
 */
export const vindex: Scenario = {
  name: "vindex",
  async run(ctx) {
    const d = await ctx.service();
    let token = await d.token();
    const template = await call(d.origin, "POST", "/archivist/v1/events", {
      token,
      json: {
        attributes: {
          arc_display_type: "vcon_created",
          subject: `vcon://${seededVcon(-1)}`,
          payload: "ab".repeat(32),
        },
      },
    });
    const id = field(template, "identity")?.split("/").at(-1);
    const tenant = field(template, "origin_tenant")?.replace("tenant/", "");
    if (template.status !== 200 || !id || !tenant)
      throw new Error(`vindex: template ${template.status} ${template.text}`);
    const n = ctx.opts.statements;
    const vcons = Math.floor(n / PER_VCON);
    ctx.log(
      `vindex: seeding ${n.toLocaleString("en-US")} records of ${vcons.toLocaleString("en-US")} vCons into ${engineOf(ctx.opts)}`,
    );
    await seedEvents(
      d,
      id,
      n,
      (done) => ctx.log(`vindex: seeded ${done.toLocaleString("en-US")}`),
      seedStoredVconEvents(PER_VCON),
    );
    const indexedMs = await untilIndexed(d.origin, tenant, n + 1, ctx.log);
    ctx.results.add(
      "vindex",
      "records logged, sealed and indexed",
      perSecond(n, indexedMs),
      "records/s",
      undefined,
      `${n.toLocaleString("en-US")} records, ${vcons.toLocaleString("en-US")} vCons of ${PER_VCON}: commit, seal and index together`,
    );
    token = await d.token();
    const headers = { authorization: `Bearer ${token}` };
    const sample = await call(d.origin, "GET", `/archivist/v1/vindex/lookup?key=vcon://${seededVcon(1)}`, {
      token,
    });
    const proof = JSON.parse(sample.text) as { indices: number[]; proof: { siblings: string[] } };
    ctx.results.add(
      "vindex",
      "lookup proof siblings",
      proof.proof.siblings.length,
      "hashes",
      undefined,
      `${sample.text.length.toLocaleString("en-US")} bytes of JSON for ${proof.indices.length} entries (log2 of ${(2 * vcons).toLocaleString("en-US")} keys ≈ ${Math.round(Math.log2(2 * vcons))})`,
    );
    const pick = () => Math.floor(Math.random() * vcons);
    const requests: RequestTemplate[] = Array.from({ length: LOOKUPS }, () => ({
      method: "GET",
      path: `/archivist/v1/vindex/lookup?key=vcon://${seededVcon(pick())}`,
      headers,
    }));
    const phase = await runPhase(ctx, d, {
      label: "vindex lookup with proof",
      requests,
      concurrency: ctx.opts.quick ? 2 : 4,
    });
    reportPhase(ctx, "vindex", "lookup with proof", phase, "lookups/s", {
      p99: { value: LOOKUP_P99_MS, label: "target p99 (1M records)" },
    });
  },
};
