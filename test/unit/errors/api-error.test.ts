import { describe, expect, it } from "vitest";
import { ApiError, badRequest, notFound } from "../../../src/errors/api-error.js";

describe("ApiError", () => {
  it("captures no stack for a refusal, keeps an internal error's, and leaves the limit as it was", () => {
    const before = Error.stackTraceLimit;
    for (const refusal of [badRequest("no"), notFound("asset"), new ApiError("rate_limited", "slow down")]) {
      expect(refusal.stack).toBe(`ApiError: ${refusal.message}`);
      expect(Error.stackTraceLimit).toBe(before);
    }
    const fault = new ApiError("internal", "storage or internal error");
    expect(fault.stack?.split("\n").length).toBeGreaterThan(1);
    expect(fault.stack).toContain("api-error.test.ts");
    expect(Error.stackTraceLimit).toBe(before);
    // Other errors made afterwards still carry their stacks.
    expect(new Error("x").stack?.split("\n").length).toBeGreaterThan(1);
  });

  it("keeps its kind, code, details and headers", () => {
    const e = new ApiError("rate_limited", "busy", ["d"], { "Retry-After": "1" });
    expect(e).toBeInstanceOf(Error);
    expect({ kind: e.kind, code: e.code, details: e.details, headers: e.headers, name: e.name }).toEqual({
      kind: "rate_limited",
      code: "RATE_LIMITED",
      details: ["d"],
      headers: { "Retry-After": "1" },
      name: "ApiError",
    });
  });
});
