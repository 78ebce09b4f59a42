import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { conserverAccessPolicy } from "../../../plugins/conserver/access/application.js";
import { validateAccessPolicyInput } from "../../../src/core/access/validate.js";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

describe("the conserver's access policy", () => {
  it("is the one the README's walk-through posts (step 2b), so the demo and a reader's conserver get the same", () => {
    const body = /access_policies -H "\$AUTH" -H "\$JSON" -d @- <<BODY[^\n]*\n([\s\S]*?)\nBODY\n/.exec(
      readme,
    )?.[1];
    expect(body).toBeDefined();
    const posted = JSON.parse((body ?? "").replaceAll("$CONSERVER_ID", "client-1")) as unknown;
    expect(posted).toEqual(conserverAccessPolicy("client-1"));
  });

  it("is a valid policy granting creation and records on vCon assets to that application alone", () => {
    const policy = validateAccessPolicyInput(conserverAccessPolicy("client-1"));
    expect(policy.filters).toHaveLength(1);
    const [permission] = policy.access_permissions;
    expect(permission?.behaviours).toEqual(["AssetCreator", "RecordEvidence"]);
    expect(permission?.asset_attributes_write).toEqual([]);
    expect(permission?.user_attributes.map((f) => f.or.map((c) => c.text))).toEqual([["subject=client-1"]]);
  });
});
