import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forSuite, startTestService, type TestService } from "./service.js";

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

/**
 * A suite's Go program `name`, built, and a service started with `env` and its first tenancy
 * owner's token: before the suite's tests (a build takes a while), stopped after. Where Go cannot
 * run, the suite's tests are skipped and nothing is built or started.
 */
export function goAndService(
  name: string,
  env: Record<string, string>,
): Readonly<{ binary: string; s: TestService; token: string }> {
  return forSuite(async () => {
    if (!goRunnable) return {} as { binary: string; s: TestService; token: string };
    const binary = buildGo(name);
    const s = await startTestService(env);
    return { binary, s, token: await s.token(s.a) };
  }, 120_000);
}

/**
 * Runs a built Go program with JSON lines in, JSON lines out. Asynchronously: the program may
 * call back into a service running in this same process.
 */
export function runGoLines<I, O>(binary: string, lines: I[]): Promise<O[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${binary} exited ${code}: ${Buffer.concat(err).toString()}`));
      resolve(
        Buffer.concat(out)
          .toString()
          .split("\n")
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as O),
      );
    });
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join("\n"));
  });
}
