import { describe, expect, it } from "vitest";
import { createWakeSignal } from "../../../src/wake/create-wake-signal.js";

describe("local wake signal", () => {
  it("wakes waiters of the topic and times out otherwise", async () => {
    const w = createWakeSignal();
    const woken = w.wait(1000, "commit");
    const other = w.wait(30, "seal");
    await w.notify("commit");
    expect(await woken).toBe(true);
    expect(await other).toBe(false);
    const seen: string[] = [];
    const off = w.subscribe((t) => seen.push(t));
    await w.notify("x");
    off();
    await w.notify("y");
    expect(seen).toEqual(["x"]);
    await w.close();
  });
});
