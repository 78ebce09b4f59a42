import { describe, expect, it } from "vitest";
import { newCaches } from "../../../../src/caches.js";
import type { Keyring } from "../../../../src/keys/keyring.js";
import { openWritePath } from "../../../../src/services/write/write-path.js";
import type { StoredAssetEvent } from "../../../../src/store/records/asset-events.js";
import { FreshEvents } from "../../../../src/store/records/fresh-events.js";
import { fakeDb } from "./fake-db.js";

const row = (id: string) => ({ id }) as StoredAssetEvent;

describe("the write path's hand-off", () => {
  it("keeps nothing until a committer opens it, then hands each row over once", () => {
    const handoff = new FreshEvents();
    handoff.add([row("a")]);
    expect(handoff.size).toBe(0);
    expect(handoff.open()).toBe(handoff);
    handoff.add([row("b"), row("c")]);
    expect(handoff.take("a")).toBeUndefined();
    expect(handoff.take("b")?.id).toBe("b");
    expect(handoff.take("b")).toBeUndefined();
    expect(handoff.size).toBe(1);
  });

  it("drops the oldest rows past its bound (the committer reads those from the database)", () => {
    const handoff = new FreshEvents(2).open();
    handoff.add([row("a"), row("b"), row("c")]);
    expect(handoff.size).toBe(2);
    expect(handoff.take("a")).toBeUndefined();
    expect(handoff.take("c")?.id).toBe("c");
  });

  it("is built once per context: its group commit and one hand-off", () => {
    const wp = openWritePath({
      db: fakeDb("pglite"),
      keys: {} as Keyring,
      caches: newCaches(),
      wake: { commit: () => undefined },
    });
    expect(wp.handoff).toBeInstanceOf(FreshEvents);
    expect(typeof wp.writeEvent).toBe("function");
    expect(typeof wp.writeFreeEvent).toBe("function");
    expect(typeof wp.writeAlone).toBe("function");
    expect(wp.handoff.size).toBe(0);
  });
});
