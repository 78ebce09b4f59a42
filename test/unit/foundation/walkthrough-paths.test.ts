import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The docs' shell snippets run from wherever the README's walk-through leaves the reader
// (walkthrough/) and write only into a folder git and Docker ignore: a private key or a backup of
// the whole database never lands in the checkout's root.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const shellBlocks = (doc: string) =>
  [...readFileSync(join(root, doc), "utf8").matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);

describe("docs/vcon-server.md's set-up", () => {
  const blocks = shellBlocks("docs/vcon-server.md");
  const setup = blocks.find((b) => b.includes("access-policy.json")) ?? "";

  it("reads the shipped files by the checkout's root, so it runs from walkthrough/ too", () => {
    expect(setup).toMatch(/^REPO=\$\(npm prefix\)/m);
    for (const b of blocks)
      for (const m of b.matchAll(/(\S*)plugins\/conserver\//g)) expect(m[1], b).toMatch(/\$REPO\/$/);
  });

  it("writes the conserver's private key into walkthrough/", () => {
    const cd = setup.indexOf('cd "$REPO/walkthrough"');
    expect(cd).toBeGreaterThan(-1);
    expect(setup.indexOf("-out signing-key.pem")).toBeGreaterThan(cd);
  });
});

describe("docs/keys.md's backups", () => {
  it("go to $BACKUPS (walkthrough/backups when trying it out), never backups/ in the current folder", () => {
    const blocks = shellBlocks("docs/keys.md").join("\n");
    expect(blocks).toMatch(/^BACKUPS=\$\{BACKUPS:-\$\(npm prefix\)\/walkthrough\/backups\}/m);
    expect(blocks).not.toMatch(/(^|[\s=])backups\//m);
    expect(blocks).toMatch(/--file="\$BACKUPS\//);
    expect(blocks).toMatch(/cp -a data\/pgdata "\$BACKUPS\//);
  });
});

describe(".gitignore", () => {
  it("keeps walk-throughs' keys and backups out of commits, wherever they were written", () => {
    const paths = [
      "walkthrough/signing-key.pem",
      "signing-key.pem",
      "backups/pgdata-2026-11-27/PG_VERSION",
      "archivist-2026-11-27.dump",
      "keys.tar.gz",
    ];
    const out = execFileSync("git", ["check-ignore", "--no-index", ...paths], {
      cwd: root,
      encoding: "utf8",
    });
    expect(out.trim().split("\n")).toEqual(paths);
  });
});
