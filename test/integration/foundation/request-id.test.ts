import { describe, expect, it } from "vitest";
import { serviceForSuite } from "../../helpers/service.js";

const suite = serviceForSuite();

describe("request conventions", () => {
  it("echoes the caller's x-request-id and gives every other request a fresh one", async () => {
    const { s, token } = suite;
    const mine = await s.api("/archivist/iam/v1/applications", {
      token,
      headers: { "x-request-id": "trace-42" },
    });
    expect(mine.headers.get("x-request-id")).toBe("trace-42");
    const a = (await s.api("/archivist/iam/v1/applications", { token })).headers.get("x-request-id");
    const b = (await s.api("/nowhere")).headers.get("x-request-id");
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it("routes a `:verb` suffix written plainly or percent-encoded in either case", async () => {
    const { s, token } = suite;
    for (const suffix of [":openapi", "%3Aopenapi", "%3aopenapi"]) {
      const res = await s.api(`/archivist/iam/v1/applications${suffix}`, { token });
      expect(res.status, suffix).toBe(200);
    }
  });
});
