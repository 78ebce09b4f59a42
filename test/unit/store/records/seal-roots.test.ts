import { describe, expect, it } from "vitest";
import { sealRoot } from "../../../../src/formats/ledger/trust.js";
import { coveringSealRoot } from "../../../../src/store/records/seal-roots.js";

const peak = (n: number) => Buffer.alloc(32, n).toString("base64");

describe("coveringSealRoot", () => {
  it("is the seal's root, and another seal's root for other peaks at the same size", () => {
    const a = [peak(1), peak(2)];
    const b = [peak(1), peak(3)];
    expect(coveringSealRoot(3, a)).toBe(sealRoot(a));
    expect(coveringSealRoot(3, a)).toBe(sealRoot(a));
    // Another log's seal of the same size, or a seal row changed since: hashed anew, not the kept root.
    expect(coveringSealRoot(3, b)).toBe(sealRoot(b));
    expect(coveringSealRoot(3, [peak(1)])).toBe(sealRoot([peak(1)]));
  });

  it("keeps no reference to the caller's array: changing it later changes no kept root", () => {
    const peaks = [peak(4)];
    const root = coveringSealRoot(1, peaks);
    peaks[0] = peak(5);
    expect(coveringSealRoot(1, [peak(4)])).toBe(root);
    expect(coveringSealRoot(1, peaks)).toBe(sealRoot([peak(5)]));
  });
});
