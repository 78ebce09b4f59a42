import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildService, startChild } from "../helpers/child-service.js";
import { freePort } from "../helpers/ports.js";
import { processOutput } from "../helpers/process-output.js";
import { deleteKeys, REDIS_URL } from "../integration/conserver/redis-env.js";

// The README's commands, run as written against `archivist serve` started as a newcomer does (a
// fresh data directory, so the default tenancy and its bootstrap.json are its own). Three
// substitutions only, of values the README names for the reader's machine: the service's URL and
// the witness's port (8080 and 8091 may be taken here), and the credentials file (the test's own
// data directory, not ./data); and environment variables the README names: the conserver's Redis
// (REDIS_URL, a database of its own) and webhook port (CONSERVER_WEBHOOK_PORT).
//
// "From the repository root" is a stand-in root in a temporary folder, its entries linked to the
// repository's: `npm run -s archivist -- …` runs there as in a clone (through the package's script
// and dist/), while `walkthrough/` — where a reader keeps the walk-through's files, a witness's
// private key among them — is the stand-in's own. The repository's walkthrough/ and data/ are
// never touched (checked below).
const root = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");
const stage = mkdtempSync(join(tmpdir(), "readme-root-"));
const SCRATCH = join(stage, "walkthrough");
// What a reader keeps in the repository, and what the test must leave as it found it.
const USERS = ["walkthrough", "data"];
for (const entry of readdirSync(root))
  if (![...USERS, ".git"].includes(entry)) symlinkSync(join(root, entry), join(stage, entry));

/** The ```sh blocks under a `## heading` of the README, in order. */
function blocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf("\n## ", start + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

const gitStatus = () =>
  spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], {
    cwd: root,
    encoding: "utf8",
  }).stdout;

/** Every file under the repository's walkthrough/ and data/, with its size and time: what a reader has there. */
function usersFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = statSync(p);
        out.push(`${relative(root, p)} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  for (const d of USERS) if (existsSync(join(root, d))) walk(join(root, d));
  return out.sort();
}

// The conserver's Redis: a database of its own on the local server, so the example config's fixed
// queue and list names meet no other test's.
const CONSERVER_REDIS = `${REDIS_URL.replace(/\/\d*$/, "")}/13`;
const CONSERVER_KEYS = [
  "archivist:",
  "archivist_ingress",
  "DLQ:archivist_ingress",
  "default_egress",
  "vcon:",
];
async function clearConserverKeys(): Promise<void> {
  const redis = new Redis(CONSERVER_REDIS);
  try {
    for (const k of CONSERVER_KEYS) await deleteKeys(redis, k);
  } finally {
    redis.disconnect();
  }
}

let service: ChildService;
let group: number | undefined;
const data = mkdtempSync(join(tmpdir(), "readme-"));
let statusBefore: string;
let filesBefore: string[];

beforeAll(async () => {
  statusBefore = gitStatus();
  filesBefore = usersFiles();
  await clearConserverKeys();
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
  stopGroup();
  await service?.kill("SIGTERM");
  rmSync(data, { recursive: true, force: true });
  rmSync(stage, { recursive: true, force: true });
  await clearConserverKeys();
});

/** Runs README text in one bash from the repository root, stopping at the first failing command. */
async function run(script: string): Promise<{ code: number | null; out: string; err: string }> {
  const text = script
    .replaceAll("URL=http://127.0.0.1:8080", `URL=${service.url}`)
    .replaceAll("$PWD/data/bootstrap.json", join(data, "data", "bootstrap.json"))
    .replaceAll("--port 8091", `--port ${await freePort()}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: CONSERVER_REDIS,
    CONSERVER_WEBHOOK_PORT: String(await freePort()),
  };
  // The test's own environment (vitest's BASE_URL, TEST_DB) is no reader's.
  delete env.BASE_URL;
  delete env.WEBHOOK_TOKEN;
  // Its own process group: whatever the README leaves running in the background when a step
  // fails (the conserver, the witness) is stopped with it, and cannot take the next run's vCons.
  const bash = spawn("bash", ["-c", `set -euo pipefail\n${text}`], {
    cwd: stage,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  group = bash.pid;
  const result = await processOutput(bash);
  stopGroup();
  return result;
}

/** Stops the README's process group, if anything of it still runs. */
function stopGroup(): void {
  try {
    if (group) process.kill(-group, "SIGTERM");
  } catch {
    // Nothing of it left running: the README stopped what it started.
  }
}

describe("README", () => {
  it("every command of the walk-through, verification, witness, SCITT, evidence, public-verify and conserver sections works as written", async () => {
    const walk = blocks("Walk-through with curl");
    const verify = blocks("Verifying without trusting us");
    const scitt = blocks("SCITT");
    const evidence = blocks("Evidence bundles");
    const publicVerify = blocks("Verifying public documents and vCons");
    const conserver = blocks("vCon conserver links");
    expect([
      walk.length,
      verify.length,
      scitt.length,
      evidence.length,
      publicVerify.length,
      conserver.length,
    ]).toEqual([1, 3, 2, 1, 1, 2]);
    // One shell, as a reader pastes the sections one after the other: variables carry over. The
    // conserver's second block is `npm run demo` (test/e2e/demo.test.ts).
    const r = await run(
      // One SCITT block runs DataTrails' samples from fetched sources, which the interop test
      // itself runs when it is given them (test/integration/interop/scitt-samples.test.ts).
      [
        ...walk,
        ...verify,
        ...scitt.filter((b) => !b.includes("SCITT_SAMPLES_GIT")),
        ...evidence,
        ...publicVerify,
        conserver[0] ?? "",
      ].join("\n"),
    );
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    const lines = r.out.split("\n");
    // Step 4 echoes the event's identity.
    expect(lines).toContainEqual(expect.stringMatching(/^assets\/[0-9a-f-]{36}\/events\/[0-9a-f-]{36}$/));
    // Every verification is VERIFIED under the keys the reader pinned: the record, the log, the
    // mirror, the statement and its payload, the registration.
    const oks = lines.filter((l) => l.startsWith("VERIFIED") || l.startsWith("OK "));
    const pinned = "VERIFIED \\(keys pinned, not witnessed\\): ";
    expect(oks).toEqual([
      expect.stringMatching(new RegExp(`^${pinned}assets/.+ is log entry \\d+ \\(MMR position \\d+\\) of `)),
      expect.stringMatching(
        new RegExp(
          `^${pinned}log tenant/[0-9a-f-]{36}: \\d+ seal\\(s\\), each signed .*, the latest of MMR size \\d+`,
        ),
      ),
      expect.stringMatching(/^OK mirrored \d+ entries to \.\/mirror/),
      expect.stringMatching(
        new RegExp(`^${pinned}assets/.+ is log entry \\d+ of .+/tlog, under its checkpoint of \\d+ entries`),
      ),
      expect.stringMatching(
        new RegExp(
          `^${pinned}assets/.+ is log entry \\d+ of .+/tlog, under its checkpoint of \\d+ entries \\(tlog proof\\)$`,
        ),
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
    // The conserver, as the application of steps 2 and 2b: it said where it runs, recorded the
    // vCon as that application (jq printed true), and dead-lettered nothing, read where it writes.
    const redis = `redis://${new URL(CONSERVER_REDIS).host} db 13 (from REDIS_URL)`;
    expect(lines).toContain(
      `conserver: on ${redis}; dead letters in archivist:dlq:archivist-delivery and DLQ:archivist_ingress (archivist conserver dlq list --config ../conserver.example.yml)`,
    );
    expect(lines).toContain("archivist_ingress");
    expect(lines.at(lines.indexOf("archivist_ingress") + 1)).toBe("true");
    expect(lines).toContain(
      `0 dead-lettered delivery job(s) in archivist:dlq:archivist-delivery on ${redis}`,
    );
    expect(lines).toContain(
      "0 vCon(s) in DLQ:archivist_ingress (list them with --ingress archivist_ingress)",
    );
    // Waiting for the conserver's log says nothing before the log exists.
    expect(r.err).not.toMatch(/conserver\.log: No such file/);
    // Everything it wrote is in the stand-in's walk-through folder, the witness's key among it;
    // the repository's own walkthrough/ and data/ are as they were, and git sees no change.
    expect(existsSync(join(SCRATCH, "w1", "key")) || readdirSync(join(SCRATCH, "w1")).length > 0).toBe(true);
    expect(usersFiles()).toEqual(filesBefore);
    expect(gitStatus()).toBe(statusBefore);
  }, 1_100_000);
});
