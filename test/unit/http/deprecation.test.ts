import type { FastifyReply } from "fastify";
import { describe, expect, it } from "vitest";
import { markDeprecated } from "../../../src/http/deprecation.js";

/** The headers `markDeprecated` sets, on a stand-in reply. */
function headersOf(successor: string): Record<string, string> {
  const set: Record<string, string> = {};
  const res = {
    header(name: string, value: string) {
      set[name] = value;
      return res;
    },
  };
  markDeprecated(res as unknown as FastifyReply, successor);
  return set;
}

describe("markDeprecated", () => {
  it("links the successor as sent when it is plain ASCII", () => {
    expect(headersOf("/entries/abc?profile=mmr")).toMatchObject({
      deprecation: expect.stringMatching(/^@\d+$/),
      link: '</entries/abc?profile=mmr>; rel="successor-version"',
    });
  });

  it("percent-encodes what a header cannot carry, so a hostile id cannot fail the reply", () => {
    // A decoded path parameter: non-ASCII, a replacement character, a space, `%`, `<` and `>`.
    expect(headersOf("/entries/\u6000\ufffd a%<b>").link).toBe(
      '</entries/%E6%80%80%EF%BF%BD%20a%25%3Cb%3E>; rel="successor-version"',
    );
    expect(headersOf("/entries/\ud800").link).toBe('</entries/%EF%BF%BD>; rel="successor-version"');
  });
});
