import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodePublicKeyFromJwk } from "../../src/core/node/crypto.js";
import { noTrust, parseBundle, verifyBundle } from "../../src/verify/index.js";
import { call } from "../http.js";
import { createAsset } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";

const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

/** Records one vCon's `n` events on one asset, 100 a request (`assets/-/events:batch`); the last one's identity. */
async function postTrail(d: Deployment, token: string, vcon: string, n: number): Promise<string> {
  const asset = await createAsset(d, token, "evidence");
  let last = "";
  for (let i = 0; i < n; i += 100) {
    const requests = Array.from({ length: Math.min(100, n - i) }, (_, k) => ({
      asset_identity: asset,
      event: {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { subject: `vcon://${vcon}`, bench_n: String(i + k) },
      },
    }));
    const a = await call(d.origin, "POST", "/archivist/v2/assets/-/events:batch", {
      token,
      json: { requests },
      headers: { prefer: "return=minimal" },
    });
    const made = (a.body as { responses?: Array<{ identity?: string }> } | undefined)?.responses;
    if (a.status !== 200 || !made || made.some((r) => !r.identity))
      throw new Error(`events batch: ${a.status} ${a.text.slice(0, 200)}`);
    last = made.at(-1)?.identity ?? last;
  }
  return last;
}

/** Waits until the record's receipts of both profiles are served: every record before it is sealed too. */
async function sealed(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  identity: string,
): Promise<boolean> {
  const deadline = Date.now() + (ctx.opts.quick ? 30_000 : 120_000);
  for (const profile of ["mmr", "rfc9162"])
    for (;;) {
      const a = await call(d.origin, "GET", `/archivist/v1/receipts/${identity}?profile=${profile}`, {
        token,
      });
      if (a.status === 200) break;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 250));
    }
  return true;
}

/**
 * One vCon's trail of `n` records, recorded and sealed; undefined (said as n/a under `na`, the
 * scenario and metric) when the seal did not come within the wait.
 */
export async function sealedTrail(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  n: number,
  na: [scenario: string, metric: string],
): Promise<{ vcon: string; note: string } | undefined> {
  const vcon = randomUUID();
  ctx.log(`${na[0]}: recording ${n} events of one vCon and waiting for their seal`);
  const last = await postTrail(d, token, vcon, n);
  if (await sealed(ctx, d, token, last)) return { vcon, note: `${n} records of one vCon` };
  ctx.results.na(na[0], na[1], "the records were not sealed within the wait");
  return undefined;
}

/** Runs the built CLI; its exit code, output and wall time. */
function cli(args: string[]): Promise<{ code: number; out: string; seconds: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, out, seconds: (performance.now() - t0) / 1000 }));
  });
}

/**
 * `evidence`: one vCon's trail of 1,001 records (100 quick), its evidence bundle gathered by the
 * service (`GET /archivist/v1/evidence/vcons/{uuid}`, which also checks it), exported with the CLI
 * (`archivist export`: the same route, checked again on the caller's side) and verified offline
 * (`archivist verify bundle`). Issue 50 and 55 found an export taking 13.7 s where its
 * verification took 1.9 s: gathering should cost about what checking does.
 */
export const evidence: Scenario = {
  name: "evidence",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const n = ctx.opts.quick ? 100 : 1001;
    const trail = await sealedTrail(ctx, d, token, n, ["evidence", "bundle"]);
    if (!trail) return;
    const { vcon, note } = trail;
    const t0 = performance.now();
    const route = await call(d.origin, "GET", `/archivist/v1/evidence/vcons/${vcon}`, { token });
    const routeSeconds = (performance.now() - t0) / 1000;
    const records = (route.body as { records?: unknown[] } | undefined)?.records?.length ?? 0;
    if (route.status !== 200 || records !== n)
      throw new Error(`evidence route: ${route.status}, ${records} records: ${route.text.slice(0, 200)}`);
    ctx.results.add("evidence", "service builds and checks the bundle", routeSeconds, "s", undefined, note);
    const dir = mkdtempSync(join(tmpdir(), "bench-evidence-"));
    try {
      const file = join(dir, "bundle.json");
      const exported = await cli([
        "export",
        `vcon://${vcon}`,
        "--url",
        d.origin,
        "--token",
        token,
        "--out",
        file,
      ]);
      if (exported.code !== 2) throw new Error(`export: ${exported.out.slice(0, 300)}`);
      ctx.results.add("evidence", "archivist export (CLI, wall)", exported.seconds, "s", undefined, note);
      // No trust roots given: "self-consistent" (2) is the best either can say, and what is expected.
      const verified = await cli(["verify", "bundle", file]);
      if (verified.code !== 2) throw new Error(`verify: ${verified.out.slice(0, 300)}`);
      ctx.results.add(
        "evidence",
        "archivist verify bundle (CLI, wall)",
        verified.seconds,
        "s",
        undefined,
        note,
      );
      // The library's own work, past the CLI's start, with node:crypto's keys as the CLI passes
      // them (the portable ones check each signature in JavaScript): the best of three, and what it proved.
      const bundle = parseBundle(readFileSync(file, "utf8"));
      let best = Number.POSITIVE_INFINITY;
      let completeness = "";
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const report = verifyBundle(bundle, noTrust(), new Date(), nodePublicKeyFromJwk);
        best = Math.min(best, (performance.now() - t0) / 1000);
        completeness = report.completeness.complete ? "complete" : report.completeness.reason;
      }
      ctx.results.add(
        "evidence",
        "verifyBundle (library, in-process)",
        best,
        "s",
        undefined,
        `${note}; ${completeness}`,
      );
      ctx.results.add(
        "evidence",
        "export ÷ verify",
        exported.seconds / verified.seconds,
        "×",
        undefined,
        "the issue's start: 13.7 s ÷ 1.9 s = 7.2",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
