import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { prefersMinimal } from "../../../src/http/prefer.js";

const asked = (prefer: string | string[] | undefined) =>
  prefersMinimal({ headers: prefer === undefined ? {} : { prefer } } as unknown as FastifyRequest);

describe("Prefer: return=minimal (RFC 7240)", () => {
  it("is read in each of the forms the RFC allows", () => {
    expect(asked("return=minimal")).toBe(true);
    expect(asked('return="minimal"')).toBe(true);
    expect(asked("RETURN=Minimal")).toBe(true);
    expect(asked(" return = minimal ")).toBe(true);
    expect(asked("respond-async, return=minimal; foo=bar, wait=10")).toBe(true);
    expect(asked(["handling=lenient", "return=minimal"])).toBe(true);
  });

  it("is not read into other preferences or values", () => {
    expect(asked(undefined)).toBe(false);
    expect(asked("")).toBe(false);
    expect(asked("return=representation")).toBe(false);
    expect(asked("return")).toBe(false);
    expect(asked("minimal")).toBe(false);
    expect(asked("x-return=minimal")).toBe(false);
    expect(asked("return=minimalist")).toBe(false);
    expect(asked("respond-async; return=minimal")).toBe(false); // a parameter of another preference
  });
});
