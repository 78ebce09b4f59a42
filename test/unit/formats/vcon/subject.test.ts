import { describe, expect, it } from "vitest";
import { canonicalSubject, sameSubject } from "../../../../src/formats/vcon/subject.js";

const uuid = "0b7c2f4e-6a1d-4e8b-9f3a-2c5d7e9f1a3b";

describe("canonicalSubject", () => {
  it("keeps the one spelling, and writes every other spelling of a vCon subject as it", () => {
    expect(canonicalSubject(`vcon://${uuid}`)).toBe(`vcon://${uuid}`);
    expect(canonicalSubject(`vcon://${uuid.toUpperCase()}`)).toBe(`vcon://${uuid}`);
    expect(canonicalSubject(`VCON://${uuid}`)).toBe(`vcon://${uuid}`);
    expect(canonicalSubject(`Vcon://${uuid.slice(0, 9)}${uuid.slice(9).toUpperCase()}`)).toBe(
      `vcon://${uuid}`,
    );
    expect(sameSubject(`VCON://${uuid.toUpperCase()}`, `vcon://${uuid}`)).toBe(true);
  });

  it("leaves anything else as it is", () => {
    for (const v of [
      `vcon://${uuid}x`,
      ` vcon://${uuid}`,
      `vcon:/${uuid}`,
      uuid,
      `vcon://${uuid.slice(1)}`,
      "",
      "a",
    ])
      expect(canonicalSubject(v)).toBe(v);
  });
});
