import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { exportCommand } from "../../src/cli/export.js";
import { verifyPublicCommand } from "../../src/cli/verify-public.js";
import { runCli } from "./cli-output.js";
import type { TestService } from "./service.js";

/**
 * The vCon's evidence bundle exported by `archivist export` from `s` as `token`, with the
 * service's keys saved beside it, and its offline `archivist verify bundle … --report` with the
 * keys pinned (further options in `extra`).
 */
export async function exportedBundle(s: TestService, token: string, vcon: string) {
  const dir = mkdtempSync(join(tmpdir(), "bundle-"));
  const keys = join(dir, "keys.cbor");
  const out = join(dir, "bundle.json");
  writeFileSync(keys, new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
  const exported = await runCli(
    (a) => exportCommand.run(a),
    [`vcon://${vcon}`, "--url", s.url, "--token", token, "--keys", keys, "--out", out],
  );
  expect(exported.code, exported.out).toBe(0);
  return {
    keys,
    out,
    report: (...extra: string[]) =>
      runCli((a) => verifyPublicCommand.run(a), ["bundle", out, "--keys", keys, "--report", ...extra]),
  };
}
