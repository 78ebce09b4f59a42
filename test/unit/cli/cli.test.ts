import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commands } from "../../../src/cli/commands.js";
import { runCli } from "../../../src/cli/program.js";
import { runCli as runInProcess } from "../../helpers/cli-output.js";
import { freePort } from "../../helpers/ports.js";

const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));

/** Runs the CLI in this process with stdout and stderr captured. */
const cli = (args: string[]) => runInProcess(runCli, args);

const subcommands = ["verify document", "verify vcon", "verify bundle"];

describe("archivist command line", () => {
  it("answers --help on stdout with exit 0, as a real process", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", MAIN, "--help"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: archivist <command>/);
    for (const name of Object.keys(commands)) expect(r.stdout).toContain(`  ${name}`);
  });

  it.each([...Object.keys(commands), ...subcommands])(
    "answers `%s --help` on stdout with exit 0",
    async (name) => {
      const r = await cli([...name.split(" "), "--help"]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/usage: archivist/i);
      expect(r.out).toContain(name.split(" ").at(-1));
      expect(r.err).toBe("");
    },
  );

  it("refuses an unknown command or option with exit 64 and names it on stderr", async () => {
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(64);
    expect(unknown.err).toMatch(/unknown command 'frobnicate'/);
    expect(unknown.err).not.toMatch(/Did you mean/);
    // A mistyped one is told the command it was probably meant to be.
    for (const [typed, meant] of [
      ["verfy", "verify"],
      ["exprot", "export"],
      ["serv", "serve"],
      ["conservr", "conserver"],
    ]) {
      const typo = await cli([typed as string]);
      expect(typo.code, typed).toBe(64);
      expect(typo.err, typed).toContain(`unknown command '${typed}'. Did you mean ${meant}?`);
      expect((await cli(["help", typed as string])).err, typed).toContain(`Did you mean ${meant}?`);
    }
    const option = await cli(["verify", "--frobnicate"]);
    expect(option.code).toBe(64);
    expect(option.err).toMatch(/unknown option '--frobnicate'/);
  });

  it("names the cause of a failure: a dead URL, a malformed log name, a missing file, missing keys", async () => {
    const port = await freePort();
    const dead = await cli([
      "verify",
      "--log",
      `tenant/${crypto.randomUUID()}`,
      "--url",
      `http://127.0.0.1:${port}`,
    ]);
    expect(dead.code).toBe(4);
    expect(dead.out).toMatch(
      /^CANNOT EVALUATE: cannot reach http:\/\/127\.0\.0\.1:\d+\/.* connection refused/,
    );
    const deadDoc = await cli(["verify", "document", "0".repeat(64), "--url", `http://127.0.0.1:${port}`]);
    expect(deadDoc.code).toBe(4);
    expect(deadDoc.out).toMatch(/connection refused/);
    const badLog = await cli(["verify", "--log", "tenant/nope", "--url", "http://127.0.0.1:1"]);
    expect(badLog).toMatchObject({
      code: 64,
      out: "",
      err: 'archivist verify: --log takes tenant/<uuid> or <uuid>, got "tenant/nope"\n',
    });
    const missing = await cli(["verify", "/nonexistent/statement.cose", "--url", "http://127.0.0.1:1"]);
    expect(missing.out).toBe(
      "CANNOT EVALUATE: cannot read the statement /nonexistent/statement.cose: no such file\n",
    );
    const noKeys = await cli(["verify", MAIN]);
    expect(noKeys.code).toBe(64);
    expect(noKeys.err).toMatch(/--url <service> \(fetches its \/\.well-known\/scitt-keys, not pinned\)/);
  });
});
