import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildService, startChild } from "../helpers/child-service.js";
import { freePort } from "../helpers/ports.js";

// The README's commands, run as written, from the repository root as the README says, against
// `archivist serve` started as a newcomer does (a fresh data directory, so the default tenancy
// and its bootstrap.json are its own). Three substitutions only, of values the README names
// for the reader's machine: the service's URL and the witness's port (8080 and 8090 may be
// taken here), and the credentials file (the test's own data directory, not ./data).
// `npm run -s archivist -- …` runs as written: through the package's script and dist/.
const root = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");
const SCRATCH = join(root, "walkthrough");

/** The ```sh blocks under a `## heading` of the README, in order. */
function blocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf("\n## ", start + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

const gitStatus = () =>
  spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: root, encoding: "utf8" })
    .stdout;

let service: ChildService;
const data = mkdtempSync(join(tmpdir(), "readme-"));
let statusBefore: string;

beforeAll(async () => {
  statusBefore = gitStatus();
  rmSync(SCRATCH, { recursive: true, force: true });
  service = await startChild(
    "serve",
    {
      DATA_DIR: join(data, "data"),
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
  rmSync(data, { recursive: true, force: true });
  rmSync(SCRATCH, { recursive: true, force: true });
});

/** Runs README text in one bash from the repository root, stopping at the first failing command. */
async function run(script: string): Promise<{ code: number | null; out: string; err: string }> {
  const text = script
    .replaceAll("URL=http://127.0.0.1:8080", `URL=${service.url}`)
    .replaceAll("$PWD/data/bootstrap.json", join(data, "data", "bootstrap.json"))
    .replaceAll("--port 8090", `--port ${await freePort()}`);
  const env = { ...process.env };
  // The test's own environment (vitest's BASE_URL, TEST_DB) is no reader's.
  delete env.BASE_URL;
  const r = spawnSync("bash", ["-c", `set -euo pipefail\n${text}`], {
    cwd: root,
    encoding: "utf8",
    // Each `npm run -s archivist` starts npm and node: on a loaded machine the whole README takes minutes.
    timeout: 1_000_000,
    env,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("README", () => {
  it("every command of the walk-through, verification, witness, SCITT, evidence and public-verify sections works as written", async () => {
    const walk = blocks("Walk-through with curl");
    const verify = blocks("Verifying without trusting us");
    const scitt = blocks("SCITT");
    const evidence = blocks("Evidence bundles");
    const publicVerify = blocks("Verifying public documents and vCons");
    expect([walk.length, verify.length, scitt.length, evidence.length, publicVerify.length]).toEqual([
      1, 3, 1, 1, 1,
    ]);
    // One shell, as a reader pastes the sections one after the other: variables carry over.
    const r = await run([...walk, ...verify, ...scitt, ...evidence, ...publicVerify].join("\n"));
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
        new RegExp(`^${pinned}assets/.+ is entry \\d+ of .+/tlog at size \\d+ \\(tlog proof\\)$`),
      ),
      expect.stringMatching(
        new RegExp(
          `^${pinned}statement by http://127\\.0\\.0\\.1:\\d+/tenant/[0-9a-f-]{36}, 0 receipt\\(s\\) checked, payload matches$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^${pinned}statement by .+, 1 receipt\\(s\\) checked( \\((mmr|rfc9162)\\))?$`),
      ),
      expect.stringMatching(
        new RegExp(`^${pinned}\\d+ record\\(s\\) of assets/[0-9a-f-]{36}, each in the log`),
      ),
      // The public document, under the same pinned keys.
      expect.stringMatching(new RegExp(`^${pinned}published as version 1`)),
    ]);
    // The witness printed the entry the restart line names.
    expect(r.out).toMatch(/^restart with: ARCHIVIST_WITNESSES="\S+ http:\/\/127\.0\.0\.1:\d+" npm start$/m);
    // The statements found by the vCon's subject and payload hash: made from the event, and registered.
    expect(lines).toContainEqual(
      expect.stringMatching(/^asset_event http:\/\/127\.0\.0\.1:\d+\/tenant\/\S+ assets\//),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^registered http:\/\/127\.0\.0\.1:\d+\/tenant\/\S+ events\//),
    );
    // The evidence bundle of the walk-through's asset: written and checked with the pinned keys.
    expect(r.out).toMatch(/^wrote evidence\.json: \d+ record\(s\), 1 log\(s\); VERIFIED/m);
    // The statement of the template-less event names all the attributes it lacks, in one answer.
    expect(r.out).toMatch(
      /payload, payload_hash_alg, payload_preimage_content_type, subject, timestamp_declared, vcon_operation, vcon_draft_version are required/,
    );
    // The public document, checked by its copy.
    expect(readFileSync(join(SCRATCH, "terms.report"), "utf8")).toMatch(/Terms of service.*Published/);
    expect(r.out).not.toMatch(/FAILED|TAMPERED|CANNOT EVALUATE|SELF-CONSISTENT/);
    // Everything it wrote is in the scratch directory, which git ignores.
    expect(gitStatus()).toBe(statusBefore);
  }, 1_100_000);
});
