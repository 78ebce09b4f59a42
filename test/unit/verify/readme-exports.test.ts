import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as verify from "../../../src/verify/index.js";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

describe("vcon-archivist/verify as the README documents it", () => {
  it("exports every name the README lists, and nothing else", () => {
    const start = readme.indexOf("Its verdict and trust surface:");
    expect(start).toBeGreaterThan(0);
    // The runtime names, up to where the paragraph turns to the types.
    const paragraph = readme.slice(start, readme.indexOf("That is the whole of it", start));
    const names = [...paragraph.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) expect((verify as Record<string, unknown>)[name], name).toBeDefined();
    // Both ways: the entry offers nothing the README does not name (the surface stays small).
    expect(Object.keys(verify).filter((name) => !names.includes(name))).toEqual([]);
    // And the names its examples import.
    for (const m of readme.matchAll(/import \{([^}]+)\} from "vcon-archivist\/verify"/g))
      for (const name of (m[1] as string).split(",").map((n) => n.trim()))
        expect((verify as Record<string, unknown>)[name], name).toBeDefined();
    expect(verify.VERDICT_CODES).toEqual([
      "verified",
      "self-consistent-unpinned",
      "policy-failed",
      "tampered",
      "cannot-evaluate",
    ]);
    expect(verify.EXIT_CODES).toEqual({
      verified: 0,
      tampered: 1,
      "self-consistent-unpinned": 2,
      "policy-failed": 3,
      "cannot-evaluate": 4,
    });
  });

  it("documents every verdict code and its exit code in docs/verification.md", () => {
    const doc = readFileSync(new URL("../../../docs/verification.md", import.meta.url), "utf8");
    for (const code of verify.VERDICT_CODES)
      expect(doc).toMatch(new RegExp(`\\| \`${code}\` \\| ${verify.EXIT_CODES[code]} \\|`));
  });
});
