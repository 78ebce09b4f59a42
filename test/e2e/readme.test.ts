import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildService, startChild } from "../helpers/child-service.js";
import { freePort } from "../helpers/ports.js";

// The README's commands, run as written against `archivist serve` started as a newcomer does
// (a fresh data directory, so the default tenancy and data/bootstrap.json are its own). Three
// substitutions only: the port (8080 may be taken here), and `npm run -s archivist --` runs
// the CLI from the sources rather than through a build of dist/.
const root = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(root, "src", "cli", "main.ts");
// The shell runs in a scratch directory, where a bare "tsx" would not resolve.
const TSX = import.meta.resolve("tsx");
const readme = readFileSync(join(root, "README.md"), "utf8");

/** The ```sh blocks under a `## heading` of the README, in order. */
function blocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf("\n## ", start + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

let service: ChildService;
const cwd = mkdtempSync(join(tmpdir(), "readme-"));

beforeAll(async () => {
  service = await startChild(
    "serve",
    {
      DATA_DIR: join(cwd, "data"),
      ARCHIVIST_SEAL_INTERVAL_MS: "200",
      ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
      // vitest puts Vite's BASE_URL ("/") in the environment; a newcomer's shell has none.
      BASE_URL: "",
    },
    await freePort(),
    150_000,
  );
}, 180_000);
afterAll(async () => {
  await service?.kill("SIGTERM");
  rmSync(cwd, { recursive: true, force: true });
});

/** Runs README text in one bash, stopping at the first failing command. */
function run(script: string): { code: number | null; out: string; err: string } {
  const text = script
    .replaceAll("http://127.0.0.1:8080", service.url)
    .replaceAll("npm run -s archivist --", `node --import ${TSX} ${MAIN}`);
  const r = spawnSync("bash", ["-c", `set -euo pipefail\n${text}`], {
    cwd,
    encoding: "utf8",
    timeout: 240_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("README", () => {
  it("the curl walk-through, the verification, the SCITT and the evidence bundle examples work as written", () => {
    const walk = blocks("Walk-through with curl");
    const verify = blocks("Verifying without trusting us");
    const scitt = blocks("SCITT");
    const evidence = blocks("Evidence bundles");
    expect([walk.length, verify.length, scitt.length, evidence.length]).toEqual([1, 2, 1, 1]);
    // One shell, as a reader pastes the sections one after the other: variables carry over.
    const r = run([...walk, ...verify, ...scitt, ...evidence].join("\n"));
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    const lines = r.out.split("\n");
    // Step 4 echoes the event's identity.
    expect(lines).toContainEqual(expect.stringMatching(/^assets\/[0-9a-f-]{36}\/events\/[0-9a-f-]{36}$/));
    // Every verification is VERIFIED under the keys the reader pinned: the record, the log, the
    // mirror, the statement and its payload, the registration.
    const oks = lines.filter((l) => l.startsWith("VERIFIED") || l.startsWith("OK "));
    const pinned = "VERIFIED \\(keys pinned, not witnessed\\): ";
    expect(oks).toEqual([
      expect.stringMatching(new RegExp(`^${pinned}assets/.+ is entry \\d+ of `)),
      expect.stringMatching(new RegExp(`^${pinned}log tenant/[0-9a-f-]{36}: \\d+ seals`)),
      expect.stringMatching(/^OK mirrored \d+ entries to \.\/mirror/),
      expect.stringMatching(new RegExp(`^${pinned}assets/.+ is leaf \\d+ of .+/tlog at size \\d+`)),
      expect.stringMatching(
        new RegExp(
          `^${pinned}statement by http://127\\.0\\.0\\.1:\\d+/tenant/[0-9a-f-]{36}, 0 receipt\\(s\\) verified, payload matches$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^${pinned}statement by .+, 1 receipt\\(s\\) verified( \\((mmr|rfc9162)\\))?$`),
      ),
      expect.stringMatching(
        new RegExp(`^${pinned}\\d+ record\\(s\\) of assets/[0-9a-f-]{36}, each in the log`),
      ),
    ]);
    // The evidence bundle of the walk-through's asset: written and checked with the pinned keys.
    expect(r.out).toMatch(/^wrote evidence\.json: \d+ record\(s\), 1 log\(s\); VERIFIED/m);
    // The statement of the template-less event names all the attributes it lacks, in one answer.
    expect(r.out).toMatch(
      /payload, payload_hash_alg, payload_preimage_content_type, subject, timestamp_declared, vcon_operation, vcon_draft_version are required/,
    );
    expect(r.out).not.toMatch(/FAILED|TAMPERED|CANNOT EVALUATE|SELF-CONSISTENT/);
  }, 300_000);
});
