import { describe, expect, it } from "vitest";
import { validateCompliancePolicyInput } from "../../../../src/core/compliance/validate.js";
import { ApiError } from "../../../../src/errors/api-error.js";

/** The message of the 400 the body raises. */
function problem(body: unknown): string {
  try {
    validateCompliancePolicyInput(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe("invalid_argument");
    return (error as ApiError).message;
  }
  throw new Error("expected a validation error");
}

const since = {
  compliance_type: "COMPLIANCE_SINCE",
  display_name: "Daily",
  event_display_type: "Maintenance",
};

describe("validateCompliancePolicyInput", () => {
  it("accepts the interface example and normalises the number to a string", () => {
    const body = {
      ...since,
      description: "Ensure Maintenance is performed daily",
      asset_filter: [{ or: ["attributes.arc_location_identity:locations/5eef2b71"] }],
      time_period_seconds: 86800,
      identity: "compliance_policies/ignored",
    };
    expect(validateCompliancePolicyInput(body)).toEqual({
      compliance_type: "COMPLIANCE_SINCE",
      display_name: "Daily",
      description: "Ensure Maintenance is performed daily",
      asset_filter: [{ or: ["attributes.arc_location_identity:locations/5eef2b71"] }],
      event_display_type: "Maintenance",
      closing_event_display_type: "",
      time_period_seconds: "86800",
      dynamic_window: "0",
      dynamic_variability: 0,
      richness_assertions: [],
    });
  });

  it("accepts int64 fields as strings and canonicalises them", () => {
    expect(
      validateCompliancePolicyInput({ ...since, time_period_seconds: "0086400" }).time_period_seconds,
    ).toBe("86400");
  });

  it("accepts a dynamic tolerance policy with the variability as a string", () => {
    const body = {
      compliance_type: "COMPLIANCE_DYNAMIC_TOLERANCE",
      event_display_type: "Start",
      closing_event_display_type: "End",
      dynamic_window: "2592000",
      dynamic_variability: "1.5",
    };
    const policy = validateCompliancePolicyInput(body);
    expect(policy.dynamic_window).toBe("2592000");
    expect(policy.dynamic_variability).toBe(1.5);
  });

  it.each([
    ["COMPLIANCE_SINCE", "event_display_type, time_period_seconds"],
    ["COMPLIANCE_CURRENT_OUTSTANDING", "event_display_type, closing_event_display_type"],
    ["COMPLIANCE_PERIOD_OUTSTANDING", "event_display_type, closing_event_display_type, time_period_seconds"],
    [
      "COMPLIANCE_DYNAMIC_TOLERANCE",
      "event_display_type, closing_event_display_type, dynamic_window, dynamic_variability",
    ],
    ["COMPLIANCE_RICHNESS", "richness_assertions"],
  ])("%s names every missing field", (type, fields) => {
    expect(problem({ compliance_type: type })).toBe(`invalid compliance policy: ${type} requires ${fields}`);
  });

  it("counts empty strings, empty lists and zero periods as missing", () => {
    expect(problem({ ...since, event_display_type: "", time_period_seconds: 0 })).toMatch(
      /requires event_display_type, time_period_seconds$/,
    );
    expect(problem({ compliance_type: "COMPLIANCE_RICHNESS", richness_assertions: [] })).toMatch(
      /requires richness_assertions$/,
    );
  });

  it.each([
    [
      { ...since, compliance_type: "COMPLIANCE_TYPE_UNDEFINED" },
      /compliance_type must be one of COMPLIANCE_SINCE/,
    ],
    [{ ...since, compliance_type: "WHENEVER" }, /compliance_type must be one of/],
    [{ display_name: "x" }, /compliance_type is required/],
    [{ ...since, time_period_seconds: -5 }, /time_period_seconds must be a non-negative whole number/],
    [{ ...since, time_period_seconds: "1.5" }, /time_period_seconds must be a non-negative whole number/],
    [{ ...since, time_period_seconds: "1e3" }, /time_period_seconds must be a non-negative whole number/],
    [
      { ...since, time_period_seconds: 86400, asset_filter: [{ or: [1] }] },
      /asset_filter\[0\]\.or\[0\] must be a string/,
    ],
    [{ ...since, time_period_seconds: 86400, asset_filter: "everything" }, /asset_filter must be an array/],
    [{ ...since, time_period_seconds: 86400, display_name: 7 }, /display_name must be a string/],
    [
      { ...since, time_period_seconds: 86400, dynamic_variability: "lots" },
      /dynamic_variability must be a number/,
    ],
    [
      { ...since, time_period_seconds: 86400, dynamic_variability: -1 },
      /dynamic_variability must be a finite number/,
    ],
    [null, /the request body must be a JSON object/],
    [[since], /the request body must be a JSON object/],
    ["COMPLIANCE_SINCE", /the request body must be a JSON object/],
  ])("refuses %j", (body, message) => {
    expect(problem(body)).toMatch(message);
  });

  it("reports every type problem at once", () => {
    const message = problem({ compliance_type: "NOPE", display_name: 1, time_period_seconds: "x" });
    expect(message).toMatch(/compliance_type must be one of/);
    expect(message).toMatch(/display_name must be a string/);
    expect(message).toMatch(/time_period_seconds must be/);
  });

  it("refuses richness assertions that are empty or malformed", () => {
    const message = problem({
      compliance_type: "COMPLIANCE_RICHNESS",
      richness_assertions: [{ or: [] }, { or: ["rad<7", "just words"] }],
    });
    expect(message).toBe(
      "invalid compliance policy: richness_assertions[0].or must not be empty; " +
        "richness_assertions[1].or[1] 'just words' is not <attribute><operator><value>",
    );
  });

  it("accepts a valid richness policy", () => {
    const body = {
      compliance_type: "COMPLIANCE_RICHNESS",
      richness_assertions: [{ or: ["rad<7", "rad=x"] }],
    };
    expect(validateCompliancePolicyInput(body).richness_assertions).toEqual([{ or: ["rad<7", "rad=x"] }]);
  });
});
