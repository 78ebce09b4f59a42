import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/*
 * Go verifiers built from Debian's packages (golang-go, golang-golang-x-mod-dev,
 * golang-github-fxamacker-cbor-dev) in GOPATH mode: there is no module proxy. `.ci/run` installs
 * them; with CI=true a missing toolchain fails the suites instead of skipping them.
 */
const GO = "/usr/bin/go";
const GOPATH = "/usr/share/gocode";
const root = join(import.meta.dirname, "..", "..");

export const goRunnable = existsSync(GO) || process.env.CI === "true";

/** Builds test/interop/go/<name> and returns the binary's path. */
export function buildGo(name: string): string {
  if (!existsSync(GO)) throw new Error(`${GO} is missing: apt-get install golang-go (CI installs it)`);
  const out = join(mkdtempSync(join(tmpdir(), "go-interop-")), name);
  const cache = join(tmpdir(), "archivist-go-cache");
  execFileSync(GO, ["build", "-o", out, "."], {
    cwd: join(root, "test", "interop", "go", name),
    env: { ...process.env, GOPATH, GO111MODULE: "off", GOFLAGS: "", GOCACHE: cache, HOME: tmpdir() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return out;
}

/** Runs a built Go program with JSON lines in, JSON lines out. */
export function runGoLines<I, O>(binary: string, lines: I[]): O[] {
  const r = spawnSync(binary, [], { input: lines.map((l) => JSON.stringify(l)).join("\n") });
  if (r.status !== 0) throw new Error(`${binary} failed: ${r.stderr.toString()}`);
  return r.stdout
    .toString()
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as O);
}
