import { describe, expect, it } from "vitest";
import { ConserverError } from "../../../plugins/conserver/errors.js";
import { hashVcon, parseLossless, parseVcon, requireVconUuid } from "../../../plugins/conserver/vcon.js";
import { parseVcon as coreParseVcon, type HashMode } from "../../../src/core/vcon/index.js";

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("the plugins' vCon functions", () => {
  it("fail with a ConserverError of the core's code, message and details", () => {
    const err = thrown(() => parseLossless('{"a": }'));
    expect(err).toBeInstanceOf(ConserverError);
    expect(err).toMatchObject({ code: "JSON_SYNTAX", details: { offset: 6 } });
    expect((err as Error).message).toMatch(/^invalid JSON at offset 6/);
    expect(thrown(() => parseVcon("[]"))).toMatchObject({ code: "VCON_NOT_OBJECT" });
    const noUuid = coreParseVcon(JSON.stringify({ parties: [], created_at: "2025-01-01T00:00:00Z" }));
    expect(thrown(() => requireVconUuid(noUuid))).toMatchObject({
      code: "VCON_NO_UUID",
      message: "unsigned vCon has no uuid",
    });
  });

  it("report an unknown hash mode as a link option error", () => {
    const doc = parseVcon(JSON.stringify({ uuid: "u-1", parties: [] }));
    const err = thrown(() => hashVcon(doc, "sha1" as HashMode));
    expect(err).toBeInstanceOf(ConserverError);
    expect(err).toMatchObject({ code: "LINK_OPTIONS", message: "unknown hash mode sha1" });
  });
});
