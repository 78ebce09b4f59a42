import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { readBounded } from "../../../src/net/bounded-body.js";
import { fetchWithin, timeLimit } from "../../../src/net/time-limit.js";

/** The collector on demand, as `--expose-gc` would give it. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

const abortedWith = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
  );

/** A body that sends a byte every 10 ms and never ends. */
function trickling(): { res: Response; cancelled: Promise<unknown> } {
  let timer: ReturnType<typeof setInterval> | undefined;
  let cancelled!: (why: unknown) => void;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      timer = setInterval(() => c.enqueue(new Uint8Array([97])), 10);
    },
    cancel(why) {
      clearInterval(timer);
      cancelled(why);
    },
  });
  return { res: new Response(body), cancelled: new Promise((r) => (cancelled = r)) };
}

describe("timeLimit", () => {
  it("aborts its signal with a TimeoutError when the time is up", async () => {
    const limit = timeLimit(20);
    const reason = await abortedWith(limit.signal);
    expect((reason as DOMException).name).toBe("TimeoutError");
  });

  it("aborts with the parent's reason, at once when the parent already has", async () => {
    const parent = new AbortController();
    const limit = timeLimit(60_000, parent.signal);
    parent.abort(new Error("job cancelled"));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as Error).message).toBe("job cancelled");
    expect(timeLimit(60_000, parent.signal).signal.reason).toBe(parent.signal.reason);
    limit.clear();
  });

  it("once cleared, neither the timer nor the parent aborts it", async () => {
    const parent = new AbortController();
    const limit = timeLimit(20, parent.signal);
    limit.clear();
    parent.abort();
    await new Promise((r) => setTimeout(r, 60));
    expect(limit.signal.aborted).toBe(false);
  });

  it("still fires after collections (the composite timeout signal of Node 20 did not)", async () => {
    const gc = collector();
    let limit: ReturnType<typeof timeLimit> | undefined = timeLimit(100);
    const reason = abortedWith(limit.signal);
    limit = undefined;
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(((await reason) as DOMException).name).toBe("TimeoutError");
  });
});

describe("fetchWithin", () => {
  it("passes the limit's signal to the fetch, and returns its answer", async () => {
    const limit = timeLimit(60_000);
    let seen: AbortSignal | undefined;
    const res = await fetchWithin(
      async (_url: string, init: { signal: AbortSignal }) => {
        seen = init.signal;
        return new Response("ok");
      },
      "http://x.invalid/",
      {},
      limit,
    );
    expect(seen).toBe(limit.signal);
    expect(await res.text()).toBe("ok");
    limit.clear();
  });

  it("ends at the limit even when the fetch ignores its signal", async () => {
    const limit = timeLimit(30);
    const never = () => new Promise<Response>(() => undefined);
    await expect(fetchWithin(never, "http://x.invalid/", {}, limit)).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });

  it("lets go of an answer that came after the limit", async () => {
    const limit = timeLimit(10);
    const late = trickling();
    const fetchLate = () => new Promise<Response>((r) => setTimeout(() => r(late.res), 50));
    await expect(fetchWithin(fetchLate, "http://x.invalid/", {}, limit)).rejects.toMatchObject({
      name: "TimeoutError",
    });
    await late.cancelled;
  });
});

describe("readBounded under a signal", () => {
  it("ends a trickling body when the signal aborts, and cancels its stream", async () => {
    const { res, cancelled } = trickling();
    const limit = timeLimit(50);
    await expect(readBounded(res, 1 << 20, "the answer", limit.signal)).rejects.toMatchObject({
      name: "TimeoutError",
    });
    expect(((await cancelled) as DOMException).name).toBe("TimeoutError");
  });

  it("reads a whole body when the signal does not abort", async () => {
    const limit = timeLimit(60_000);
    expect(new TextDecoder().decode(await readBounded(new Response("abc"), 10, "x", limit.signal))).toBe(
      "abc",
    );
    limit.clear();
  });
});
