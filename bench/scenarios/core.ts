import { es256Rates, rs256Rates, sha256Rate } from "../micro.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { TARGETS } from "../targets.js";
import { benchCose } from "./core-cose.js";
import { benchLedger } from "./core-ledger.js";

/** Limits other scenarios compare with (keys of Results.limits). */
const LIMIT = {
  sha256: "sha256",
  es256Sign: "es256.sign",
  es256Verify: "es256.verify",
  rs256Sign: "rs256.sign",
  rs256Verify: "rs256.verify",
} as const;

/** Measures RS256 sign/s unless `core` already did in this run (the token scenario's limit). */
export function rs256SignLimit(ctx: ScenarioContext): number {
  let v = ctx.results.limits.get(LIMIT.rs256Sign);
  if (v === undefined) {
    v = rs256Rates(Math.min(ctx.opts.microMs, 300)).sign;
    ctx.results.limits.set(LIMIT.rs256Sign, v);
  }
  return v;
}

/** `core`: the machine's physical limits, one thread, in process (no HTTP, no database). */
export const core: Scenario = {
  name: "core",
  async run(ctx) {
    const ms = ctx.opts.microMs;
    const add = (metric: string, key: string, value: number, unit: string) => {
      ctx.results.limits.set(key, value);
      ctx.results.add("core", metric, value, unit);
    };
    ctx.log("core: SHA-256");
    add("SHA-256 64 B", LIMIT.sha256, sha256Rate(ms), "hashes/s");
    ctx.log("core: ES256");
    const es = es256Rates(ms);
    add("ES256 sign", LIMIT.es256Sign, es.sign, "ops/s");
    add("ES256 verify", LIMIT.es256Verify, es.verify, "ops/s");
    ctx.log("core: RS256");
    const rs = rs256Rates(ms);
    add("RS256 sign", LIMIT.rs256Sign, rs.sign, "ops/s");
    add("RS256 verify", LIMIT.rs256Verify, rs.verify, "ops/s");
    ctx.log("core: MMR and leaf hashing");
    await benchLedger(ctx, TARGETS.mmrAppend);
    ctx.log("core: COSE statements and receipts");
    await benchCose(ctx, TARGETS.statementsOfEs256);
  },
};
