import { describe, expect, it } from "vitest";
import { DECLARED_GAP_LIMIT_MS, declaredGap } from "../../../src/web/time-gap.js";

describe("the declared time's gap from acceptance", () => {
  it("flags a gap past one day either way, and only then", () => {
    expect(DECLARED_GAP_LIMIT_MS).toBe(86_400_000);
    const accepted = "2026-11-25T12:00:00Z";
    expect(declaredGap("2026-11-24T12:00:00Z", accepted)).toMatchObject({ flagged: false, ms: 86_400_000 });
    expect(declaredGap("2026-11-24T11:59:59Z", accepted)).toMatchObject({
      flagged: true,
      words: "declared 1 day before it was accepted",
    });
    expect(declaredGap("2026-11-28T12:00:00Z", accepted)).toMatchObject({
      flagged: true,
      words: "declared 3 days after it was accepted",
    });
    expect(declaredGap("2026-11-25T09:00:00Z", accepted)).toMatchObject({
      flagged: false,
      words: "declared 3 hours before it was accepted",
    });
    expect(declaredGap(accepted, accepted)?.words).toBe("declared less than a second before it was accepted");
  });

  it("says nothing of a missing or unreadable time", () => {
    expect(declaredGap("", "2026-11-25T12:00:00Z")).toBeUndefined();
    expect(declaredGap("yesterday", "2026-11-25T12:00:00Z")).toBeUndefined();
    expect(declaredGap("2026-11-25T12:00:00Z", "")).toBeUndefined();
  });
});
