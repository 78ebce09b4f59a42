import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysCommand } from "../../../src/cli/keys.js";
import { runCli } from "../../helpers/cli-output.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { seedPglite } from "../../helpers/pglite-template.js";

// Issue 71: `archivist keys` keeps the README's one exit status scheme. A log the database does not
// have is a failed command (1), not a verdict's status (2 is verify's "self-consistent"); a --log
// or --cosign-days that cannot be read is a usage error (64), said on stderr.

const dataDir = mkdtempSync(join(tmpdir(), "archivist-keys-exit-"));
let pg: { url: string; drop(): Promise<void> } | undefined;
let flags: string[];

beforeAll(async () => {
  pg = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
  if (!pg) await seedPglite(dataDir);
  flags = [
    "--data-dir",
    dataDir,
    "--key-dir",
    join(dataDir, "keys"),
    ...(pg ? ["--database-url", pg.url] : []),
  ];
});
afterAll(async () => {
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const keys = (args: string[]) => runCli((a) => keysCommand.run(a), args);

describe(`archivist keys: exit statuses (${testEngine()})`, () => {
  it("accept-restore of a log this database does not have: 1, named on the FAILED line", async () => {
    const unknown = randomUUID();
    const r = await keys(["accept-restore", "--log", `tenant/${unknown}`, ...flags]);
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.out).toBe(
      `FAILED log tenant/${unknown}: no such log (no tenancy of that id in this database)\n`,
    );
  });

  it.each([
    [
      ["accept-restore", "--log", "tenant/nope"],
      'archivist: --log takes tenant/<uuid> or <uuid>, got "tenant/nope"\n',
    ],
    [
      ["rotate", "seal", "--cosign-days", "soon"],
      'archivist: --cosign-days takes a number of days, got "soon"\n',
    ],
  ])("a malformed value (%j): 64, said on stderr, nothing on stdout", async (args, said) => {
    const r = await keys([...args, ...flags]);
    expect(r).toEqual({ code: 64, out: "", err: said });
  });
});
