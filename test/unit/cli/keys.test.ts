import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keysCommand } from "../../../src/cli/keys.js";
import { FileKeys } from "../../../src/keys/file-keys.js";
import { KeyDirectory } from "../../../src/keys/key-directory.js";
import { Keyring } from "../../../src/keys/keyring.js";
import { isRotatablePurpose } from "../../../src/services/operator/key-rotation.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { runCli } from "../../helpers/cli-output.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "archivist-keys-cli-"));
  dirs.push(d);
  return d;
};
const keyringAt = (path: string) => {
  const dir = new KeyDirectory(path);
  const files = new FileKeys(dir);
  return new Keyring({} as Db, dir, files, files);
};
const keys = (args: string[]) => runCli((a) => keysCommand.run(a), args);

describe("archivist keys list", () => {
  // Issue 74: the rows came without a word of what each column is.
  it("names its columns on a header row, then one row per key", async () => {
    const keyDir = fresh();
    const seal = await keyringAt(keyDir).get("seal", "ES256");
    const r = await keys(["list", "--key-dir", keyDir, "--data-dir", fresh()]);
    expect(r.code, r.err).toBe(0);
    const [header, ...rows] = r.out.trimEnd().split("\n");
    expect(header).toBe("purpose\tkid\talg\tholder\tcreated\tstatus");
    expect(rows).toHaveLength(1);
    expect(rows[0]?.split("\t")).toEqual([
      "seal",
      seal.kid,
      "ES256",
      expect.any(String),
      expect.any(String),
      "current",
    ]);
  });

  it("--json stays the manifests alone", async () => {
    const r = await keys(["list", "--json", "--key-dir", fresh(), "--data-dir", fresh()]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual([]);
  });
});

describe("archivist keys rotate's purposes", () => {
  // The command line refuses a mistyped purpose before opening anything (64); the keyring is what
  // rotates, so the two must agree on every purpose.
  it.each([
    "seal",
    "token",
    "tlog",
    "issuer:018f0000-0000-7000-8000-000000000000",
    "bogus",
    "wallet:x",
    "issuer:x",
    "Seal",
  ])("%s: the command line and the keyring agree", async (purpose) => {
    const refused = await keyringAt(fresh())
      .rotate(purpose)
      .then(
        () => false,
        (err: Error) => /cannot be rotated/.test(err.message),
      );
    expect(isRotatablePurpose(purpose)).toBe(!refused);
  });
});
