import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../../src/core/compliance/evaluate.js";
import type { OrClause } from "../../../../src/core/compliance/types.js";
import { event, hoursAfter, policy } from "./fixtures.js";

const asset = { radiation: "7", weight: 12.5, owner: "alice", model: "B-10", spare: true, nested: { a: 1 } };

const rich = (...clauses: string[][]) =>
  policy("COMPLIANCE_RICHNESS", { richness_assertions: clauses.map((or): OrClause => ({ or })) });

const cases: Array<{
  name: string;
  clauses: string[][];
  attributes?: Record<string, unknown>;
  compliant: boolean;
  reason?: RegExp;
}> = [
  {
    name: "numeric less than",
    clauses: [["radiation<10"]],
    compliant: true,
    reason: /^all 1 richness assertion groups hold$/,
  },
  { name: "numeric, not string, order", clauses: [["radiation<10.0"], ["radiation>=7"]], compliant: true },
  {
    name: "numeric greater fails",
    clauses: [["radiation>7"]],
    compliant: false,
    reason: /^radiation is '7', not > '7'$/,
  },
  { name: "number attribute", clauses: [["weight<=12.5"], ["weight>12.49"]], compliant: true },
  { name: "float equality is exact", clauses: [["weight=12.50"]], compliant: true },
  { name: "float equality has no tolerance", clauses: [["weight=12.5000001"]], compliant: false },
  { name: "string equality", clauses: [["owner=alice"]], compliant: true },
  { name: "string inequality", clauses: [["owner!=bob"]], compliant: true },
  { name: "string order when one side is not numeric", clauses: [["model<B-2"]], compliant: true },
  { name: "boolean attribute as text", clauses: [["spare=true"]], compliant: true },
  { name: "or passes if any passes", clauses: [["owner=bob", "owner=alice"]], compliant: true },
  {
    name: "or fails if none passes",
    clauses: [["owner=bob", "radiation>100"]],
    compliant: false,
    reason: /^owner is 'alice', not = 'bob' and radiation is '7', not > '100'$/,
  },
  {
    name: "all clauses must pass",
    clauses: [["owner=alice"], ["radiation>100"]],
    compliant: false,
    reason: /^radiation is '7'/,
  },
  {
    name: "missing attribute fails even !=",
    clauses: [["colour!=red"]],
    compliant: false,
    reason: /^colour is missing$/,
  },
  {
    name: "objects cannot be compared",
    clauses: [["nested=1"]],
    compliant: false,
    reason: /nested is missing/,
  },
  { name: "filter spelling attributes.<k>", clauses: [["attributes.owner=alice"]], compliant: true },
  { name: "empty value", clauses: [["owner!="]], compliant: true },
  { name: "not an assertion", clauses: [["owner"]], compliant: false, reason: /'owner' is not an assertion/ },
];

describe("COMPLIANCE_RICHNESS", () => {
  it.each(cases)("$name", ({ clauses, attributes, compliant, reason }) => {
    const context = { events: [], assetAttributes: attributes ?? asset, at: hoursAfter(0) };
    const result = evaluateCompliance(rich(...clauses), context);
    expect(result.compliant).toBe(compliant);
    if (reason) expect(result.reason).toMatch(reason);
  });

  it("judges the attributes it is given, whatever the time (history is the caller's at_time view)", () => {
    const p = rich(["radiation<5"]);
    const then = { radiation: "3" };
    expect(
      evaluateCompliance(p, { events: [event("x", 0)], assetAttributes: then, at: hoursAfter(-100) })
        .compliant,
    ).toBe(true);
    expect(evaluateCompliance(p, { events: [], assetAttributes: asset, at: hoursAfter(100) }).compliant).toBe(
      false,
    );
  });

  it("fails a stored policy without assertions", () => {
    const result = evaluateCompliance(rich(), { events: [], assetAttributes: asset, at: hoursAfter(0) });
    expect(result).toEqual({ compliant: false, reason: "policy has no richness_assertions" });
  });
});
