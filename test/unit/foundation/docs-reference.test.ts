import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The docs stay references, not diaries (issue 53): the performance page holds one run's numbers,
// what bounds them and how to measure, in at most 300 lines; the changelog is cut into released
// versions; the index by reader links only to what exists.
const repo = resolve(import.meta.dirname, "../../..");
const read = (path: string) => readFileSync(join(repo, path), "utf8");

const PERFORMANCE_MAX_LINES = 300;
/** `## [x.y.z] - YYYY-MM-DD`, Keep a Changelog's heading of a released version. */
const VERSION = /^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$/;

/** The text outside fenced code blocks (a shell comment there is no heading). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchors GitHub makes of a file's headings: lower case, punctuation dropped, spaces as dashes. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = (m[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every link target of a markdown file, outside code: `[text](target)`. */
function links(markdown: string): string[] {
  const text = prose(markdown)
    .join("\n")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
}

/** Why a relative link from `from` does not resolve, or undefined when it does. */
function brokenLink(from: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#");
  const file = path === "" ? join(repo, from) : resolve(dirname(join(repo, from)), path);
  if (!file.startsWith(`${repo}/`) && file !== repo) return `${target}: outside the repository`;
  if (!existsSync(file)) return `${target}: ${relative(repo, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!statSync(file).isFile() || !file.endsWith(".md"))
    return `${target}: an anchor into a non-markdown path`;
  if (!anchors(readFileSync(file, "utf8")).has(anchor))
    return `${target}: no heading makes #${anchor} in ${relative(repo, file)}`;
  return undefined;
}

describe("docs as references", () => {
  it(`docs/performance.md is at most ${PERFORMANCE_MAX_LINES} lines`, () => {
    const lines = read("docs/performance.md").trimEnd().split("\n").length;
    expect(lines).toBeGreaterThan(50);
    expect(lines).toBeLessThanOrEqual(PERFORMANCE_MAX_LINES);
  });

  it("CHANGELOG.md is cut into released versions, newest first, under an Unreleased section", () => {
    const headings = prose(read("CHANGELOG.md")).filter((l) => l.startsWith("## "));
    expect(headings[0]).toBe("## Unreleased");
    const versions = headings.slice(1);
    expect(versions.length).toBeGreaterThanOrEqual(1);
    expect(versions.filter((h) => !VERSION.test(h))).toEqual([]);
    const parsed = versions.map((h) => {
      const m = VERSION.exec(h) as RegExpExecArray;
      const date = m[4] as string;
      expect(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10), h).toBe(date);
      return { h, key: [Number(m[1]), Number(m[2]), Number(m[3])], date };
    });
    for (let i = 1; i < parsed.length; i++) {
      const [a, b] = [parsed[i - 1], parsed[i]] as [(typeof parsed)[0], (typeof parsed)[0]];
      const newer = a.key.findIndex((n, k) => n !== b.key[k]);
      expect(newer >= 0 && (a.key[newer] as number) > (b.key[newer] as number), `${a.h} after ${b.h}`).toBe(
        true,
      );
      expect(a.date >= b.date, `${a.h} dated before ${b.h}`).toBe(true);
    }
  });

  it("every relative link of docs/README.md resolves, anchors included", () => {
    const targets = links(read("docs/README.md")).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
    expect(targets.length).toBeGreaterThanOrEqual(10);
    expect(targets.map((t) => brokenLink("docs/README.md", t)).filter(Boolean)).toEqual([]);
  });

  it("docs/README.md links every doc and decision record, and names every room of scripts/layers.json", () => {
    const index = read("docs/README.md");
    const linked = new Set(links(index).map((t) => t.split("#")[0]));
    const docs = readdirSync(join(repo, "docs")).filter((f) => f.endsWith(".md") && f !== "README.md");
    const adrs = readdirSync(join(repo, "docs/adr")).map((f) => `adr/${f}`);
    expect([...docs, ...adrs].filter((d) => !linked.has(d))).toEqual([]);
    const rooms = (
      JSON.parse(read("scripts/layers.json")) as { rooms: Array<{ name: string; paths: string[] }> }
    ).rooms;
    expect(
      rooms.filter((r) => !index.includes(`\`${r.name}\` (${r.paths.map((p) => `\`${p}\``).join(", ")})`)),
    ).toEqual([]);
  });

  it("a link to a missing doc or heading is caught", () => {
    expect(brokenLink("docs/README.md", "no-such-doc.md")).toMatch(/does not exist/);
    expect(brokenLink("docs/README.md", "../README.md#no-such-heading")).toMatch(/no heading/);
    expect(brokenLink("docs/README.md", "../README.md#two-commands")).toBeUndefined();
    expect(anchors("# A, b `c` — d\n```sh\n# not a heading\n```\n## A, b `c` — d\n")).toEqual(
      new Set(["a-b-c--d", "a-b-c--d-1"]),
    );
  });
});
