import { describe, expect, it } from "vitest";
import { consoleFragment, parseConsoleLink } from "../../../src/web/console-link.js";

const A = "0190b6a1-0000-7000-8000-0000000000aa";
const E = "0190b6a1-0000-7000-8000-0000000000bb";

describe("the console's deep links", () => {
  it("read a vCon, an asset, an asset event and an asset-free event, and write them back", () => {
    for (const [fragment, link] of [
      [`#vcon=${A}`, { kind: "vcon", uuid: A }],
      [`#asset=${A}`, { kind: "asset", uuid: A }],
      [`#record=assets/${A}/events/${E}`, { kind: "record", identity: `assets/${A}/events/${E}`, asset: A }],
      [`#record=events/${E}`, { kind: "record", identity: `events/${E}` }],
    ] as const) {
      expect(parseConsoleLink(fragment)).toEqual(link);
      expect(consoleFragment(link)).toBe(fragment);
    }
    expect(parseConsoleLink(`record=assets%2F${A.toUpperCase()}%2Fevents%2F${E}`)).toEqual({
      kind: "record",
      identity: `assets/${A}/events/${E}`,
      asset: A,
    });
  });

  it("refuse anything else: other keys, malformed ids, bad escapes", () => {
    for (const f of ["", "#", `#token=${A}`, "#vcon=not-a-uuid", `#record=assets/${A}`, "#asset=%E0%A4%A"])
      expect(parseConsoleLink(f)).toBeUndefined();
  });
});
