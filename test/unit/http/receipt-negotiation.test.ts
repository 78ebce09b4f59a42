import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { requestedMmrForm, requestedProfile } from "../../../src/http/receipt-negotiation.js";

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

  it("reads the media type's parameters whatever its case, and none from an Accept that names no receipt type", () => {
    expect(requestedProfile(asking("Application/SCITT-Receipt+COSE; VDS=1"), {}, "mmr")).toBe("rfc9162");
    expect(requestedMmrForm(asking("text/html, APPLICATION/COSE; mmr_proof=bstr"), {})).toBe("bstr");
    for (const accept of ["*/*", "application/json; vds=1", "text/plain;profile=rfc9162", ""]) {
      expect(requestedProfile(asking(accept), {}, "mmr"), accept).toBe("mmr");
      expect(requestedMmrForm(asking(accept), {}), accept).toBe("map");
    }
    expect(requestedProfile({ headers: {} } as unknown as FastifyRequest, {}, "mmr")).toBe("mmr");
    // The query and Accept must agree.
    expect(() => requestedMmrForm(asking("application/cose; mmr_proof=map"), { mmr_proof: "bstr" })).toThrow(
      /mmr_proof=bstr and Accept for mmr_proof=map/,
    );
  });
});
