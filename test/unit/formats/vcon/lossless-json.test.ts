import { describe, expect, it } from "vitest";
import { stringifyLossless, toLossless } from "../../../../src/core/vcon/lossless-stringify.js";
import { VconError } from "../../../../src/formats/vcon/errors.js";
import { type JsonNumber, parseLossless } from "../../../../src/formats/vcon/lossless-json.js";
import { errorCode } from "../../../helpers/error-code.js";

const code = (f: () => unknown) => errorCode(VconError, f);

describe("lossless JSON parser", () => {
  it("keeps number lexemes and big integers exactly", () => {
    const v = parseLossless("[1.0, 12345678901234567890123, -0, 1e5]") as JsonNumber[];
    expect(v.map((n) => n.lexeme)).toEqual(["1.0", "12345678901234567890123", "-0", "1e5"]);
    expect(v[0]?.isInteger).toBe(false);
    expect(v[1]?.isInteger).toBe(true);
  });

  it("keeps key order, integer-like keys included, and a repeated key's first place with its last value", () => {
    const m = parseLossless('{"b":1,"2":2,"a":3,"b":4}') as Map<string, unknown>;
    expect([...m.keys()]).toEqual(["b", "2", "a"]);
    expect((m.get("b") as JsonNumber).lexeme).toBe("4");
  });

  it("decodes escapes, including surrogate pairs and lone surrogates", () => {
    expect(parseLossless('"\\u00e9\\ud83d\\ude00\\n\\/"')).toBe("é😀\n/");
    expect(parseLossless('"\\udc00"')).toBe("\udc00");
  });

  it("round-trips compactly without changing numbers", () => {
    const text = '{"z":1.50,"a":[true,false,null,"x"],"big":123456789012345678901}';
    expect(stringifyLossless(parseLossless(text))).toBe(text);
    expect(stringifyLossless(toLossless({ a: 1, b: [0.5, "s"], c: undefined }))).toBe(
      '{"a":1,"b":[0.5,"s"]}',
    );
  });

  it.each([
    ["", "JSON_SYNTAX"],
    ["{", "JSON_SYNTAX"],
    ['{"a" 1}', "JSON_SYNTAX"],
    ["[1,]", "JSON_SYNTAX"],
    ["01", "JSON_SYNTAX"],
    ['"a\u0001"', "JSON_SYNTAX"],
    ['"\\x"', "JSON_SYNTAX"],
    ['"\\u12"', "JSON_SYNTAX"],
    ["NaN", "JSON_SYNTAX"],
    ["tru", "JSON_SYNTAX"],
    ["{} x", "JSON_SYNTAX"],
    ['"open', "JSON_SYNTAX"],
    ["[".repeat(600) + "]".repeat(600), "JSON_TOO_DEEP"],
  ])("refuses %j with a typed error", (text, want) => {
    expect(code(() => parseLossless(text))).toBe(want);
  });
});
