import { describe, expect, it } from "vitest";
import {
  ApiRefusedError,
  ApiUnavailableError,
  BodyTooLarge,
  type HttpAnswer,
  type HttpSend,
  Transport,
} from "../../../src/client/index.js";

const policy = {
  inlineRetries: 2,
  baseDelayMs: 1,
  maxDelayMs: 2,
  maxRateLimitWaits: 1,
  maxRateLimitWaitMs: 10,
  requestTimeoutMs: 1000,
};

/** A sender answering `answers` in turn (the last again once they run out), counting sends and the bound asked. */
function scripted(answers: Array<{ status: number; body: () => Promise<Uint8Array> }>) {
  const seen = { sends: 0, bounds: [] as number[] };
  const send: HttpSend = async () => {
    const a = answers[Math.min(seen.sends, answers.length - 1)] as (typeof answers)[number];
    seen.sends += 1;
    const answer: HttpAnswer = {
      status: a.status,
      headers: { get: () => null },
      body: (max) => {
        seen.bounds.push(max);
        return a.body();
      },
    };
    return answer;
  };
  return { send, seen };
}
const text = (t: string) => async () => new TextEncoder().encode(t);
const tooLarge = async (): Promise<Uint8Array> => {
  throw new BodyTooLarge("larger than the bound");
};

describe("the transport's reading of answers", () => {
  it("reads every answer within a bound: the client's, or the call's", async () => {
    const { send, seen } = scripted([{ status: 200, body: text('{"ok":true}') }]);
    const t = new Transport({ url: "http://x", send, policy, maxAnswerBytes: 1234 });
    expect((await t.json("GET", "/a", { route: "a" })).body).toEqual({ ok: true });
    await t.json("GET", "/a", { route: "a", maxAnswerBytes: 99 });
    expect(seen.bounds).toEqual([1234, 99]);
    const plain = scripted([{ status: 200, body: text("{}") }]);
    await new Transport({ url: "http://x", send: plain.send, policy }).json("GET", "/a", { route: "a" });
    expect(plain.seen.bounds).toEqual([8 * 1024 * 1024]);
  });

  it("takes a write's answer that cannot be read as a lost answer: unavailable, and not sent again", async () => {
    for (const body of [tooLarge, text("<html>busy</html>")]) {
      const { send, seen } = scripted([{ status: 200, body }]);
      const t = new Transport({ url: "http://x", send, policy });
      const call = t.json("POST", "/w", { route: "w", retryUnknown: false });
      await expect(call).rejects.toBeInstanceOf(ApiUnavailableError);
      await expect(call).rejects.toThrow(/cannot be read/);
      expect(seen.sends).toBe(1);
    }
  });

  it("asks a read again when its answer cannot be read", async () => {
    const { send, seen } = scripted([
      { status: 200, body: tooLarge },
      { status: 200, body: text('{"n":1}') },
    ]);
    const t = new Transport({ url: "http://x", send, policy });
    expect((await t.json("GET", "/r", { route: "r" })).body).toEqual({ n: 1 });
    expect(seen.sends).toBe(2);
  });

  it("fails a redirect as one that may pass, never as a refusal, and does not send a write again", async () => {
    const { send, seen } = scripted([{ status: 307, body: text("") }]);
    const t = new Transport({ url: "http://x", send, policy });
    const call = t.json("POST", "/w", { route: "w", retryUnknown: false });
    await expect(call).rejects.toBeInstanceOf(ApiUnavailableError);
    await expect(call).rejects.not.toBeInstanceOf(ApiRefusedError);
    await expect(call).rejects.toThrow(/307 \(redirects are not followed\)/);
    expect(seen.sends).toBe(1);
  });
});
