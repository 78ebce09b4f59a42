import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { LogGuard } from "../../../src/keys/log-guard.js";
import { SignedStates } from "../../../src/keys/signed-state.js";

const A = "0b7c2f4e-6a1d-4e8b-9f3a-2c5d7e9f1a3b";
const B = "1c8d3f5a-7b2e-4f9c-8a4b-3d6e8f0a2b4c";

describe("LogGuard.signingUnderWay", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const guard = () => {
    const d = mkdtempSync(join(tmpdir(), "log-guard-"));
    dirs.push(d);
    return new LogGuard(new SignedStates(d), pino({ level: "silent" }));
  };

  it("is the log's signing from when it is queued until the last has ended, committed or not", async () => {
    const g = guard();
    expect(g.signingUnderWay(A)).toBeUndefined();
    let endFirst: () => void = () => undefined;
    const first = g.signing(A, () => new Promise<void>((r) => (endFirst = r)));
    const second = g.signing(A, async () => {
      throw new Error("did not commit");
    });
    const under = g.signingUnderWay(A);
    expect(under).toBeInstanceOf(Promise);
    // Another log is not held up by this one's.
    expect(g.signingUnderWay(B)).toBeUndefined();
    let settled = false;
    void under?.then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    endFirst();
    await first;
    await expect(second).rejects.toThrow("did not commit");
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(true);
    expect(g.signingUnderWay(A)).toBeUndefined();
  });
});
