import { describe, expect, it } from "vitest";
import { tokenClaims } from "../../../src/web/console-data.js";

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("the console's reading of its own token", () => {
  it("names the application and its tenancy", () => {
    const token = `${b64url({ alg: "RS256" })}.${b64url({ name: "Auditor app", jit_tenant_id: "tenant/abc" })}.sig`;
    expect(tokenClaims(token)).toEqual({ name: "Auditor app", tenant: "abc" });
  });

  it("names nothing it cannot read", () => {
    expect(tokenClaims("not a token")).toEqual({ name: "", tenant: "" });
    expect(tokenClaims(`x.${b64url({ name: 7 })}.y`)).toEqual({ name: "", tenant: "" });
  });
});
