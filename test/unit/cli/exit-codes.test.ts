import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { commands } from "../../../src/cli/commands.js";
import { runCli } from "../../../src/cli/program.js";
import { coseKeySet } from "../../../src/formats/cose/index.js";
import type { EcJwk } from "../../../src/formats/crypto/public-key.js";
import { USAGE_EXIT_CODE } from "../../../src/verify/verdict/verdict.js";
import { runCli as runInProcess } from "../../helpers/cli-output.js";
import { freePort } from "../../helpers/ports.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";

// One scheme for every command (README §Command line, docs/verification.md): 0 done (verify:
// verified), the verdict's status 1–4 for a verification (an unreadable file is cannot-evaluate,
// 4), 1 a command's own failure, 64 a command line that cannot run as typed.
const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const read = (name: string) => readFileSync(new URL(`../../../${name}`, import.meta.url), "utf8");

/** Runs the CLI in this process with stdout and stderr captured. */
const cli = (args: string[]) => runInProcess(runCli, args);

describe("archivist's exit statuses", () => {
  it("the usage status is 64, apart from every verdict's", () => {
    expect(USAGE_EXIT_CODE).toBe(64);
  });

  it.each([[[]], [["nope"]], [["nope", "--help"]], [["help", "nope"]], [["--bogus"]]])(
    "no command to run (%j): 64",
    async (args) => {
      const r = await cli(args);
      expect(r.code, r.err).toBe(64);
    },
  );

  it.each(Object.keys(commands))(
    "`%s` with an option it does not know: 64, named on stderr",
    async (name) => {
      const r = await cli([name, "--no-such-option"]);
      expect(r.code, r.err).toBe(64);
      expect(r.err).toMatch(/no-such-option/i);
    },
  );

  it.each([
    [["verify"]],
    [["verify", "bundle"]],
    [["verify", "document"]],
    [["verify", "vcon", "x"]],
    [["verify", "record.json"]],
    [["verify", "--log", "tenant/nope", "--url", "http://127.0.0.1:1"]],
    [["export"]],
    [["export", "vcon://x"]],
    [["export", "nothing", "--url", "http://127.0.0.1:1"]],
    [["mirror"]],
    [["mirror", "http://127.0.0.1:1/tlog"]],
    [["mirror", "http://127.0.0.1:1/tlog", "dir", "--deadline", "0"]],
    [["witness"]],
    [["witness", "--dir", "d", "--name", "n", "--port", "eighty"]],
    [["conserver"]],
    [["conserver", "run"]],
    [["conserver", "dlq", "list", "--limit", "none"]],
    [["bench", "no-such-scenario"]],
  ])("a command line missing what it needs or malformed (%j): 64, nothing on stdout", async (args) => {
    const r = await cli(args);
    expect(r.code, r.err).toBe(64);
    expect(r.out).toBe("");
    expect(r.err).not.toBe("");
  });

  it.each([
    [["--help"]],
    [["--version"]],
    [["help", "verify"]],
    ...Object.keys(commands).map((c) => [[c, "--help"]]),
  ])("help and version (%j): 0", async (args) => {
    expect((await cli(args)).code).toBe(0);
  });

  it("an unreadable file is evidence that cannot be evaluated: 4, the verdict's", async () => {
    const statement = await cli(["verify", "/nonexistent/s.cose", "--url", "http://127.0.0.1:1"]);
    expect(statement).toMatchObject({ code: 4, out: expect.stringMatching(/^CANNOT EVALUATE: cannot read/) });
    const bundle = await cli(["verify", "bundle", "/nonexistent/b.json"]);
    expect(bundle).toMatchObject({ code: 4, out: expect.stringMatching(/^CANNOT EVALUATE: cannot read/) });
  });

  // Issue 74: a malformed value the configuration refuses is the command line's when a flag gave it.
  it("`serve --port abc`: 64, the flag named on stderr; the same PORT from the environment: 1", async () => {
    const flag = await cli(["serve", "--port", "abc"]);
    expect(flag).toEqual({
      code: 64,
      out: "",
      err: 'archivist serve: --port: PORT must be a non-negative number, got "abc"\n',
    });
    vi.stubEnv("PORT", "abc");
    try {
      const env = await cli(["serve"]);
      expect(env.code, env.err).toBe(1);
      expect(env.err).toMatch(/^archivist serve: PORT must be a non-negative number/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("`keys rotate bogus`: 64 before anything is opened, the purposes named", async () => {
    const r = await cli(["keys", "rotate", "bogus", "--data-dir", "/nonexistent/archivist-data"]);
    expect(r.code, r.err).toBe(64);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      /"bogus" is no key purpose: seal, token, tlog, tlog-ml-dsa-44 or issuer:<tenant uuid>/,
    );
  });

  it("`export` to an address nothing answers: cannot evaluate (4), said as the other commands say it", async () => {
    const target = "vcon://018f0000-0000-7000-8000-000000000000";
    // A port just closed, not port 1: fetch refuses that one itself ("bad port").
    const url = `http://127.0.0.1:${await freePort()}`;
    const credentials = await cli([
      "export",
      target,
      "--url",
      url,
      "--client-id",
      "a",
      "--client-secret",
      "b",
    ]);
    expect(credentials.code).toBe(4);
    expect(credentials.out).toBe(
      `FAILED the token request: cannot reach ${url}/archivist/iam/v1/appidp/token: connection refused (is the service running at that address?) (ECONNREFUSED)\n`,
    );
    const token = await cli(["export", target, "--url", url, "--token", "t"]);
    expect(token.code).toBe(4);
    expect(token.out).toMatch(
      /^FAILED .*: connection refused \(is the service running at that address\?\) \(ECONNREFUSED\)\n$/,
    );
  });

  // Issue 74: a wrong file given as the receipt was TAMPERED (1); it is evidence that cannot be judged.
  it("a file of another kind given as `--receipt`: CANNOT EVALUATE, 4", async () => {
    const dir = mkdtempSync(join(tmpdir(), "archivist-wrong-receipt-"));
    try {
      const record = join(dir, "record.json");
      writeFileSync(record, JSON.stringify({ identity: "events/0194b168-bac0-75e6-bbc4-a47cc45bdbf5" }));
      const keys = join(dir, "keys.cbor");
      writeFileSync(keys, coseKeySet([{ jwk: vectorPublicKey.jwk as EcJwk, kid: "svc" }]));
      for (const wrong of [record, keys]) {
        const r = await cli(["verify", record, "--receipt", wrong, "--keys", keys]);
        expect(r.code, r.out).toBe(4);
        expect(r.out).toMatch(/^CANNOT EVALUATE: the receipt file is not a COSE_Sign1/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("as a real process: `archivist nope --help` exits 64", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", MAIN, "nope", "--help"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/unknown command 'nope'/);
  }, 120_000);

  it("is documented as it is: README and docs/verification.md", () => {
    for (const doc of [read("README.md"), read("docs/verification.md")]) {
      expect(doc).toMatch(/`64`[^\n]*usage/i);
      expect(doc).toMatch(/unreadable file[^\n]*4|4[^\n]*unreadable file/i);
    }
  });
});
