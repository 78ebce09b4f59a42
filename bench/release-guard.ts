import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { GUARD_LIMIT, guardVerdict, type Release, releases } from "./release.js";
import type { Report } from "./report.js";

/**
 * `node dist/bench/release-guard.js` (.ci/run): builds the last release beside this tree (a git
 * worktree of its commit, `npm ci`, build) and runs a short `pair` of ingest, conserver and
 * reads against it on the environment's database (DATABASE_URL, REDIS_URL). It fails when this
 * tree's machine CPU per record is more than twice the release's on any of them: a guard
 * against the next ×3 (issue 59), not a timing test. `RELEASE_GUARD_CLI`: an already built
 * release's `dist/src/cli/main.js`, instead of building one.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const LOADS = "ingest,conserver,reads";

const log = (line: string) => process.stderr.write(`[release-guard] ${line}\n`);

function git(args: string[]): string | undefined {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function commitOf(ref: string): string | undefined {
  return git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
}

/** The release's commit: its tag, else the commit its heading names, fetched if this clone lacks both. */
function resolve(release: Release): string {
  const tag = `v${release.version}`;
  const local = () => commitOf(tag) ?? (release.commit ? commitOf(release.commit) : undefined);
  let commit = local();
  if (!commit) {
    log(`${tag} is not in this clone: fetching it`);
    git(["fetch", "--quiet", "origin", "tag", tag]);
    if (release.commit) git(["fetch", "--quiet", "origin", release.commit]);
    commit = local();
  }
  if (!commit)
    throw new Error(
      `release ${release.version}: neither the tag ${tag} nor the commit its CHANGELOG heading names (${release.commit ?? "none"}) is in this clone or its origin`,
    );
  return commit;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): number {
  log(`${cmd} ${args.join(" ")} (in ${cwd})`);
  return spawnSync(cmd, args, { cwd, env, stdio: "inherit" }).status ?? 1;
}

/** Builds the release in a worktree of its own; returns its CLI and how to remove the worktree. */
function buildRelease(release: Release): { cli: string; remove(): void } {
  const commit = resolve(release);
  const dir = mkdtempSync(join(tmpdir(), `archivist-release-${release.version}-`));
  const remove = () => {
    git(["worktree", "remove", "--force", dir]);
    rmSync(dir, { recursive: true, force: true });
    git(["worktree", "prune"]);
  };
  try {
    execFileSync("git", ["worktree", "add", "--detach", dir, commit], { cwd: root, stdio: "inherit" });
    if (run("npm", ["ci", "--no-audit", "--no-fund"], dir) !== 0)
      throw new Error("npm ci failed in the release's tree");
    // Releases before 0.8 have no prepare script: npm ci leaves them unbuilt.
    if (!existsSync(join(dir, "dist/src/cli/main.js")) && run("npm", ["run", "build"], dir) !== 0)
      throw new Error("the release's build failed");
    return { cli: join(dir, "dist/src/cli/main.js"), remove };
  } catch (err) {
    remove();
    throw err;
  }
}

function main(): number {
  const [release] = releases(readFileSync(join(root, "CHANGELOG.md"), "utf8"));
  if (!release) throw new Error("CHANGELOG.md names no release (## [x.y.z] - date)");
  const given = process.env.RELEASE_GUARD_CLI;
  const built = given ? { cli: given, remove: () => undefined } : buildRelease(release);
  const out = join(mkdtempSync(join(tmpdir(), "archivist-release-guard-")), "pair.json");
  try {
    log(`pair of ${LOADS} against release ${release.version} (${built.cli})`);
    const status = run(
      process.execPath,
      // Phases of 5 s, not quick's 1.5: a few hundred reads per side, not a handful.
      [
        "--max-semi-space-size=64",
        join(root, "dist/bench/main.js"),
        "pair",
        "--quick",
        "--duration",
        "5",
        "--json",
        out,
      ],
      root,
      { ...process.env, BENCH_PAIR_CLI: built.cli, BENCH_PAIR_LOAD: LOADS, BENCH_PAIR_ROUNDS: "1" },
    );
    if (status !== 0) log(`the pair exited with ${status}: what it measured is judged below`);
    const rows = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Report).results : [];
    const verdict = guardVerdict(rows);
    for (const l of verdict.lines) log(`${l.ok ? "ok  " : "FAIL"} ${l.message}`);
    if (!verdict.ok)
      log(
        `this tree's machine CPU per record is more than ${GUARD_LIMIT} times release ${release.version}'s, or was not measured: see docs/performance.md (pair)`,
      );
    return verdict.ok && status === 0 ? 0 : 1;
  } finally {
    built.remove();
    rmSync(join(out, ".."), { recursive: true, force: true });
  }
}

try {
  process.exitCode = main();
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
}
