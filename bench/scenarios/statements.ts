import { createHash } from "node:crypto";
import { call } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { reportPhase, runPhase } from "../phase.js";
import { createAsset, postEvent } from "../records.js";
import { engineOf, type Scenario } from "../scenario.js";
import { seedEvents, seedStatements } from "../seed.js";
import { perSecond } from "../stats.js";
import { TARGETS } from "../targets.js";

const PATH = "/archivist/v1/statements";
// Distinct look-ups per phase, used round-robin: spread over the index, not one cached page.
const LOOKUPS = 500;

const template = {
  arc_display_type: "vcon_created",
  payload: "ab".repeat(32),
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject: "tel:+15550",
  timestamp_declared: "2025-01-01T00:00:00Z",
  vcon_operation: "vcon_created",
  vcon_draft_version: "01",
};

/** `statements`: find by subject, payload hash and issuer over many statements seeded by SQL. */
export const statements: Scenario = {
  name: "statements",
  async run(ctx) {
    const d = await ctx.service();
    let token = await d.token();
    const probe = await call(d.origin, "GET", `${PATH}?subject=x`, { token });
    if (probe.status === 404) {
      ctx.results.na("statements", "find", "endpoint not available");
      return;
    }
    const asset = await createAsset(d, token, "statements");
    const id = (await postEvent(d, token, asset, template)).split("/").at(-1) as string;
    const n = ctx.opts.statements;
    const subjects = Math.max(1, Math.floor(n / 10));
    ctx.log(`statements: seeding ${n.toLocaleString("en-US")} statements into ${engineOf(ctx.opts)}`);
    const ms = await seedEvents(
      d,
      id,
      n,
      (done) => ctx.log(`statements: seeded ${done.toLocaleString("en-US")} / ${n.toLocaleString("en-US")}`),
      seedStatements(subjects),
    );
    ctx.results.add(
      "statements",
      "statements seeded",
      n,
      "statements",
      undefined,
      `${subjects.toLocaleString("en-US")} subjects (tel:), a payload hash each`,
    );
    ctx.results.add(
      "statements",
      "seed rate (SQL generate_series)",
      perSecond(n, ms),
      "rows/s",
      undefined,
      "indexes built after the inserts",
    );
    // PGlite's seeding restarts the service on another port, which refuses the old one's tokens.
    token = await d.token();
    const headers = { authorization: `Bearer ${token}` };
    const pick = () => 1 + Math.floor(Math.random() * n);
    const get = (query: string): RequestTemplate => ({ method: "GET", path: `${PATH}?${query}`, headers });
    const keys = await call(d.origin, "GET", "/archivist/v1/scitt/keys", { token });
    const issuer = (JSON.parse(keys.text) as { issuer: string }).issuer;
    const lookups = (f: () => RequestTemplate) => Array.from({ length: LOOKUPS }, f);
    const target = { p99: { value: TARGETS.listPageP99Ms, label: "target p99 (PostgreSQL, 1M)" } };
    const phases: Array<[string, RequestTemplate[]]> = [
      [
        "by subject (10 matches)",
        lookups(() => get(`subject=${encodeURIComponent(`tel:+1555${pick() % subjects}`)}`)),
      ],
      [
        "by payload hash (1 match)",
        lookups(() => get(`payload_hash=${createHash("sha256").update(`bench-${pick()}`).digest("hex")}`)),
      ],
      ["by issuer (first page of 50)", [get(`issuer=${encodeURIComponent(issuer)}&page_size=50`)]],
      ["by subject, no match", lookups(() => get(`subject=${encodeURIComponent(`tel:+1999${pick()}`)}`))],
    ];
    for (const [name, requests] of phases) {
      const phase = await runPhase(ctx, d, {
        label: `statements ${name}`,
        requests,
        concurrency: ctx.opts.quick ? 2 : 4,
      });
      reportPhase(ctx, "statements", name, phase, "searches/s", target);
    }
  },
};
