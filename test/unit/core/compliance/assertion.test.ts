import { describe, expect, it } from "vitest";
import { describeSeconds } from "../../../../src/core/compliance/duration.js";
import { parseRichnessAssertion } from "../../../../src/core/compliance/richness-assertion.js";

describe("parseRichnessAssertion", () => {
  it.each([
    ["rad<7", { attribute: "rad", operator: "<", value: "7" }],
    ["rad<=7", { attribute: "rad", operator: "<=", value: "7" }],
    ["rad>=7", { attribute: "rad", operator: ">=", value: "7" }],
    ["rad>7", { attribute: "rad", operator: ">", value: "7" }],
    ["rad!=7", { attribute: "rad", operator: "!=", value: "7" }],
    ["rad=7", { attribute: "rad", operator: "=", value: "7" }],
    ["a=b=c", { attribute: "a", operator: "=", value: "b=c" }],
    ["wow!x=1", { attribute: "wow!x", operator: "=", value: "1" }],
    [" rad = 7 ", { attribute: "rad", operator: "=", value: "7" }],
  ])("%s", (text, expected) => {
    expect(parseRichnessAssertion(text)).toEqual(expected);
  });

  it.each(["rad", "", "=7", "  <3", "rad!7"])("refuses %j", (text) => {
    expect(parseRichnessAssertion(text)).toBeUndefined();
  });
});

describe("describeSeconds", () => {
  it.each([
    [0, "0 seconds"],
    [1, "1 second"],
    [59.9, "59 seconds"],
    [3600, "1 hour"],
    [3 * 86400, "3 days"],
    [86400 + 7200 + 5, "1 day 2 hours"],
    [-5, "0 seconds"],
  ])("%d → %s", (seconds, words) => {
    expect(describeSeconds(seconds)).toBe(words);
  });
});
