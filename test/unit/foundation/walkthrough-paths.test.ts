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
    expect(blocks).toMatch(/cp -a "\$DATA\/pgdata" "\$BACKUPS\//);
  });

  // Issue 74: the embedded database's block read a $BACKUPS only the block above set, and a $PID
  // none set; its restore deleted data/pgdata before a copy that then failed.
  it("each block sets what it reads, and deletes only after what replaces it is in place", () => {
    for (const b of shellBlocks("docs/keys.md")) {
      for (const [, name] of b.matchAll(/\$\{?(BACKUPS|DATA|PID|COPY|DUMP|DB|ADMIN)\b/g))
        expect(b, `${name} is read but not set in:\n${b}`).toMatch(new RegExp(`(^|[\\s;(])${name}=`, "m"));
      for (const m of b.matchAll(/\b(rm -rf|dropdb)\b/g)) {
        const before = b.slice(0, m.index).split("\n").slice(-2).join("\n");
        expect(before, `${m[1]} without its replacement checked first:\n${b}`).toMatch(
          /(test -f|pg_restore --list)[^\n]*&&[\s\S]*$/,
        );
      }
    }
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
