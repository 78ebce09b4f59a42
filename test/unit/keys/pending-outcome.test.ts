import { describe, expect, it } from "vitest";
import { pendingOutcome } from "../../../src/keys/pending-outcome.js";
import type { SignedLogState } from "../../../src/keys/signed-state.js";

const state = (mmr_size: number, extra: Partial<SignedLogState> = {}): SignedLogState => ({
  tenant_id: "t",
  mmr_size,
  peaks: [`p${mmr_size}`],
  signed_at: "2026-11-29T00:00:00Z",
  ...extra,
});
const seal = (mmr_size: number) => ({ mmr_size, peaks: [`p${mmr_size}`] });
const period0 = { period: 0, start_size: 0 };

describe("pendingOutcome", () => {
  it("reads a seal left pending from the database's newest seal", () => {
    const first = state(1, { pending: true });
    expect(pendingOutcome(first, { seal: seal(1), openPeriod: period0 })).toBe("committed");
    expect(pendingOutcome(first, { seal: undefined, openPeriod: period0 })).toBe("not committed");
    const next = state(4, { pending: true, before: state(1) });
    expect(pendingOutcome(next, { seal: seal(4), openPeriod: period0 })).toBe("committed");
    expect(pendingOutcome(next, { seal: seal(1), openPeriod: period0 })).toBe("not committed");
    // Neither: a restore, or seals deleted; the guard's comparison judges.
    expect(pendingOutcome(next, { seal: undefined, openPeriod: period0 })).toBe("unknown");
    expect(pendingOutcome(next, { seal: seal(3), openPeriod: period0 })).toBe("unknown");
    expect(pendingOutcome(next, { seal: { mmr_size: 4, peaks: ["other"] }, openPeriod: period0 })).toBe(
      "unknown",
    );
  });

  it("reads a period's close by the period it opened, when its seal is the one before", () => {
    const opened = { period: 1, start_size: 3 };
    const close = state(4, { pending: true, open_period: opened, before: state(4) });
    expect(pendingOutcome(close, { seal: seal(4), openPeriod: opened })).toBe("committed");
    expect(pendingOutcome(close, { seal: seal(4), openPeriod: period0 })).toBe("not committed");
  });
});
