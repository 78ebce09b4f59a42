import { describe, expect, it } from "vitest";
import { versionLabel } from "../../../src/lookup/document.js";
import { readableDate } from "../../../src/web/dates.js";
import { TRUST_WORDS, trustWords } from "../../../src/web/trust.js";

describe("the pages' words", () => {
  it("name a version by its number, and an unnumbered one in words (never 'version ' and nothing)", () => {
    expect(versionLabel("2")).toBe("version 2");
    expect(versionLabel("")).toBe("an unnumbered version");
  });

  it("explain every trust level the service sets, and say so for an unknown one", () => {
    for (const level of ["STORED", "COMMITTED", "CONFIRMED", "UNEQUIVOCAL", "PENDING"])
      expect(TRUST_WORDS[level]?.split(" ").length).toBeGreaterThan(8);
    expect(trustWords("UNEQUIVOCAL")).toMatch(/anchored/);
    expect(trustWords("SHRUG")).toBe('Trust level "SHRUG" is not one this page knows.');
  });

  it("read RFC 3339 times as dates, and leave anything else as given", () => {
    const text = readableDate("2026-11-24T21:33:05.123Z", "en-GB");
    expect(text).toMatch(/24 Nov 2026/);
    expect(text).toMatch(/\d\d:\d\d:05/);
    expect(readableDate("yesterday")).toBe("yesterday");
    expect(readableDate("")).toBe("(no time)");
  });
});
