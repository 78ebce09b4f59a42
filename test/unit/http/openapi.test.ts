import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../src/http/openapi.js";
import { allSpecs } from "../../helpers/route-specs.js";

type Operation = { consumes?: string[]; parameters: Array<{ name: string; in: string; required: boolean }> };
const doc = openApiDocument(allSpecs(), "", "https://archivist.example") as {
  consumes: string[];
  paths: Record<string, Record<string, Operation>>;
};

describe("the OpenAPI document", () => {
  it("says the token endpoint takes a form, its fields as formData, not a JSON body it answers 415", () => {
    const token = doc.paths["/archivist/iam/v1/appidp/token"]?.post;
    expect(token?.consumes).toEqual(["application/x-www-form-urlencoded"]);
    expect(token?.parameters.some((p) => p.in === "body")).toBe(false);
    const fields = Object.fromEntries((token?.parameters ?? []).map((p) => [p.name, p]));
    expect(fields.grant_type).toMatchObject({ in: "formData", type: "string" });
    expect(fields.client_id).toMatchObject({ in: "formData", type: "string" });
    expect(fields.client_secret).toMatchObject({ in: "formData", type: "string" });
  });

  it("leaves the document's JSON to every route that takes JSON", () => {
    expect(doc.consumes).toEqual(["application/json"]);
    const assets = doc.paths["/archivist/v2/assets"]?.post;
    expect(assets?.consumes).toBeUndefined();
    expect(assets?.parameters.filter((p) => p.in === "body")).toHaveLength(1);
  });
});
