import { describe, expect, it } from "vitest";
import type { BearerTokens } from "../../../src/client/token-source.js";
import { LookupError, type LookupFetch, PublicApi } from "../../../src/lookup/public-api.js";

// The one look-up client: it carries the caller's token, asks its source for a fresh one when the
// service refuses the first, bounds what it reads, and names a failure by the status answered.

/** A service that takes one token only, and remembers what each request carried. */
function service(accepted: string, body = '{"ok":true}') {
  const seen: Array<string | undefined> = [];
  const fetch: LookupFetch = async (url, init) => {
    seen.push(init?.headers?.authorization);
    if (url.endsWith("/busy")) return new Response('{"message":"slow down"}', { status: 429 });
    if (init?.headers?.authorization !== `Bearer ${accepted}`)
      return new Response('{"message":"token refused"}', { status: 401 });
    return new Response(body, { status: 200 });
  };
  return { fetch, seen };
}

/** A token source handing out `tokens` in turn, recording what was invalidated. */
function source(tokens: string[]): BearerTokens & { invalidated: string[] } {
  let i = 0;
  const invalidated: string[] = [];
  return {
    invalidated,
    get: async () => tokens[Math.min(i, tokens.length - 1)] as string,
    invalidate(token: string) {
      invalidated.push(token);
      i++;
    },
  };
}

describe("the look-up client (PublicApi)", () => {
  it("sends a fixed token, and none when it has none", async () => {
    const s = service("t1");
    expect(await new PublicApi("https://a.example", { fetch: s.fetch, tokens: "t1" }).json("/x")).toEqual({
      ok: true,
    });
    await expect(new PublicApi("https://a.example", { fetch: s.fetch }).json("/x")).rejects.toThrow(
      /answered 401: token refused/,
    );
    expect(s.seen).toEqual(["Bearer t1", undefined]);
  });

  it("asks its token source for a fresh token once when the service refuses one (401)", async () => {
    const s = service("fresh");
    const tokens = source(["stale", "fresh"]);
    const api = new PublicApi("https://a.example", { fetch: s.fetch, tokens });
    expect(await api.json("/x")).toEqual({ ok: true });
    expect(tokens.invalidated).toEqual(["stale"]);
    expect(s.seen).toEqual(["Bearer stale", "Bearer fresh"]);
    // A service that refuses the fresh one too: its answer stands, after one retry only.
    const never = service("nobody");
    const again = new PublicApi("https://a.example", { fetch: never.fetch, tokens: source(["a", "b", "c"]) });
    await expect(again.json("/x")).rejects.toMatchObject({ status: 401 });
    expect(never.seen).toEqual(["Bearer a", "Bearer b"]);
  });

  it("names a rate limit by its status (429), which callers branch on", async () => {
    const s = service("t");
    const err = await new PublicApi("https://a.example", { fetch: s.fetch, tokens: "t" })
      .json("/busy")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LookupError);
    expect(err).toMatchObject({ code: "LOOKUP_FAILED", status: 429 });
  });

  it("reads no more than its bound", async () => {
    const s = service("t", JSON.stringify({ big: "x".repeat(5000) }));
    const api = new PublicApi("https://a.example", { fetch: s.fetch, tokens: "t", maxBytes: 1000 });
    await expect(api.json("/x")).rejects.toThrow(/larger than 1000 bytes/);
    expect(await api.bytes("/x", { maxBytes: 10_000 })).toHaveLength(5010);
  });
});
