import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { requestedProfile } from "../../../src/http/receipt-negotiation.js";

const asking = (accept: string) => ({ headers: { accept } }) as unknown as FastifyRequest;

describe("receipt profile negotiation", () => {
  it("reads vds from Accept", () => {
    expect(requestedProfile(asking("application/scitt-receipt+cose; vds=1"), {}, "mmr")).toBe("rfc9162");
    expect(requestedProfile(asking("application/cose;vds=3"), {}, "rfc9162")).toBe("mmr");
  });

  it("takes no profile from a vds that names a key of Object.prototype", () => {
    for (const vds of ["constructor", "__proto__", "toString"])
      expect(requestedProfile(asking(`application/cose; vds=${vds}`), {}, "rfc9162")).toBe("rfc9162");
  });
});
