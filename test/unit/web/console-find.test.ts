import { describe, expect, it } from "vitest";
import { entryWords, leafIndexOfMmrIndex, mmrIndexOfLeaf } from "../../../src/formats/mmr/index.js";
import { isBareNumber, parseLogPlace, placeWords } from "../../../src/web/console-find.js";

// Leaf 7 sits at MMR position 11: the finder takes each number only under its own name.
describe("the console finder's places in the log", () => {
  it("reads an MMR position only when it is named as one", () => {
    for (const t of ["mmr 11", "MMR position 11", "mmr_index 11", "mmr #11", "mmr-pos 11"])
      expect(parseLogPlace(t), t).toEqual({ numbering: "mmr", n: 11 });
  });

  it("reads a log entry (the leaf index) as log entry, entry or leaf", () => {
    for (const t of ["log entry 7", "entry 7", "Entry #7", "leaf 7", "leaf index 7"])
      expect(parseLogPlace(t), t).toEqual({ numbering: "entry", n: 7 });
  });

  it("takes a bare number as neither: the finder asks which it is", () => {
    for (const t of ["11", "#11", " 7 "]) {
      expect(parseLogPlace(t), t).toBeUndefined();
      expect(isBareNumber(t), t).toBe(true);
    }
    expect(isBareNumber("entry 7")).toBe(false);
  });

  it("names each number as its own", () => {
    expect(placeWords({ numbering: "mmr", n: 11 })).toBe("MMR position 11");
    expect(placeWords({ numbering: "entry", n: 7 })).toBe("log entry 7");
  });
});

describe("a record's place in words", () => {
  it("gives the log entry and the MMR position, each named", () => {
    expect(entryWords(11)).toBe("log entry 7 (MMR position 11)");
    expect(entryWords(0)).toBe("log entry 0 (MMR position 0)");
    expect(entryWords(2)).toBe("MMR position 2 (not a leaf)");
    for (const leaf of [0, 1, 5, 7, 1047])
      expect(entryWords(mmrIndexOfLeaf(leaf))).toBe(
        `log entry ${leaf} (MMR position ${mmrIndexOfLeaf(leaf)})`,
      );
    expect(leafIndexOfMmrIndex(mmrIndexOfLeaf(1047))).toBe(1047);
  });
});
