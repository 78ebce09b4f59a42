import { describe, expect, it } from "vitest";
import { anyOfPath } from "../../../src/store/attribute-sql.js";

describe("anyOfPath", () => {
  it("writes one strict jsonpath test for a key given several values", () => {
    expect(anyOfPath("k", ["x", "7", 7])).toBe('strict $."k" == "x" || $."k" == "7" || $."k" == 7');
  });

  it("quotes keys and values as JSON strings, escapes included", () => {
    expect(anyOfPath('a"b\\c', ["é☃", 'x"\n'])).toBe(
      'strict $."a\\"b\\\\c" == "é☃" || $."a\\"b\\\\c" == "x\\"\\n"',
    );
  });
});
