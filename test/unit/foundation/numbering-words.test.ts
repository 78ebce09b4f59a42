import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 74: two numberings name a place in a log, and the console, the API and /verify say which:
// "log entry 7" (the leaf index checkpoints and tlog-proofs count), "MMR position 11" (what MMR
// receipts carry); a checkpoint's size counts log entries, a seal's is an MMR size. The verifier's
// and the CLI's lines said "leaf 1", "under seal 18", "(size 7)" and the demo "(mmr 4036)". No text
// they print puts a bare number after those words.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const FOLDERS = ["src/verify", "src/cli", "plugins/conserver/demo"];
const BARE = [
  { words: "leaf N", re: /\bleaf \$\{/ },
  { words: "seal N", re: /\bseal \$\{/ },
  { words: "size N without MMR", re: /(?<!MMR )\bsize \$\{/ },
  { words: "mmr N", re: /\bmmr \$\{/ },
];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

describe("the numbering's words in what the verifier, the CLI and the demo print", () => {
  it.each(FOLDERS)("%s: no bare leaf, seal, size or mmr number", (folder) => {
    const found: string[] = [];
    for (const file of sources(folder))
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/^\s*(\/\/|\*)/.test(line)) return;
          for (const b of BARE)
            if (b.re.test(line)) found.push(`${file}:${i + 1} (${b.words}): ${line.trim()}`);
        });
    expect(found).toEqual([]);
  });
});
