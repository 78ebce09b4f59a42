import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type SignedLogState, SignedStates } from "../../../src/keys/signed-state.js";

const TENANT = "0b7c2f4e-6a1d-4e8b-9f3a-2c5d7e9f1a3b";
const state = (mmr_size: number): SignedLogState => ({
  tenant_id: TENANT,
  mmr_size,
  peaks: [Buffer.alloc(32, mmr_size).toString("base64")],
  signed_at: "2026-11-28T00:00:00.000Z",
});

describe("SignedStates", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const keyDir = () => {
    const d = mkdtempSync(join(tmpdir(), "signed-state-"));
    dirs.push(d);
    return d;
  };

  it("reads what another process wrote since, where its own last write is kept", async () => {
    const dir = keyDir();
    const mine = new SignedStates(dir);
    const other = new SignedStates(dir);
    await mine.write(state(3));
    expect((await mine.read(TENANT))?.mmr_size).toBe(3);
    expect((await other.read(TENANT))?.mmr_size).toBe(3);
    await other.write(state(7));
    expect((await mine.read(TENANT))?.mmr_size).toBe(7);
    await mine.write(state(10));
    expect((await other.read(TENANT))?.mmr_size).toBe(10);
    await other.remove(TENANT);
    expect(await mine.read(TENANT)).toBeUndefined();
  });

  it("hands out a state no caller can change under the others", async () => {
    const states = new SignedStates(keyDir());
    await states.write(state(3));
    const read = (await states.read(TENANT)) as SignedLogState;
    expect(() => {
      read.mmr_size = 99;
    }).toThrow(TypeError);
    expect(() => read.peaks.push("x")).toThrow(TypeError);
    expect((await states.read(TENANT))?.mmr_size).toBe(3);
  });
});
