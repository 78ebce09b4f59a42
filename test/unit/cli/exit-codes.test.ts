import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commands } from "../../../src/cli/commands.js";
import { runCli } from "../../../src/cli/program.js";
import { USAGE_EXIT_CODE } from "../../../src/verify/verdict/verdict.js";
import { runCli as runInProcess } from "../../helpers/cli-output.js";

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
