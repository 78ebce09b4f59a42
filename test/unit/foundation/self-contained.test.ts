import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A user's clone has only what git tracks: no test may read a folder beside the repository (the
// vectors and sample vCons once came from one, and a clone failed 36 test files), and every
// public data file the tests read names its source.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter((f) => f !== "");

// Written in pieces so that this file does not name what it looks for.
const OUTSIDE = [["..", "shared"].join("/"), ["", "work", ""].join("/")];

describe("the repository is self-contained", () => {
  it("no tracked file names a folder outside the repository", () => {
    const naming: string[] = [];
    for (const file of tracked) {
      const path = join(root, file);
      // A file deleted in the work tree but still in the index is not what a clone reads.
      let text: string;
      try {
        if (!statSync(path).isFile()) continue;
        text = readFileSync(path, "latin1");
      } catch {
        continue;
      }
      for (const o of OUTSIDE) if (text.includes(o)) naming.push(`${file}: ${o}`);
    }
    expect(naming).toEqual([]);
  });

  it("every file under test/fixtures/vectors and test/fixtures/vcon is tracked and named in its folder's README", () => {
    for (const folder of ["test/fixtures/vectors", "test/fixtures/vcon"]) {
      const readme = readFileSync(join(root, folder, "README.md"), "utf8");
      const files = readdirSync(join(root, folder)).filter((f) => f !== "README.md");
      expect(files.length, folder).toBeGreaterThan(0);
      for (const f of files) {
        expect(tracked, `${folder}/${f}`).toContain(`${folder}/${f}`);
        expect(readme, `${folder}/${f}`).toContain(`\`${f}\``);
      }
    }
  });
});
