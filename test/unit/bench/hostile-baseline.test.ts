import { describe, expect, it } from "vitest";
import type { Phase } from "../../../bench/phase.js";
import { aloneAt, medianRound, type Round, roundRatio } from "../../../bench/scenarios/hostile.js";

/** A phase that only says its rate (the rest of a phase is not read here). */
const at = (throughput: number) => ({ result: { throughput }, usage: {} }) as unknown as Phase;

const round = (alone: number, mixed: number, underFlood: number, after: number): Round => ({
  alone: at(alone),
  mixed: at(mixed),
  attack: at(100),
  underFlood: at(underFlood),
  flood: at(20),
  after: at(after),
});

describe("hostile: the benign rate alone at each beside phase", () => {
  it("is the rate alone when the machine holds its speed", () => {
    const r = round(3000, 2700, 2850, 3000);
    expect(aloneAt(r, 1)).toBe(3000);
    expect(aloneAt(r, 2)).toBe(3000);
    expect(roundRatio(r, 1)).toBeCloseTo(0.9, 12);
    expect(roundRatio(r, 2)).toBeCloseTo(0.95, 12);
  });

  it("follows a drift between the alone phases, a third and two thirds of the way", () => {
    // The machine slows by a fifth over the round: the beside phases ran at its speed then.
    const r = round(3000, 2700, 2400, 2400);
    expect(aloneAt(r, 1)).toBe(2800);
    expect(aloneAt(r, 2)).toBe(2600);
    expect(roundRatio(r, 1)).toBeCloseTo(2700 / 2800, 12);
    expect(roundRatio(r, 2)).toBeCloseTo(2400 / 2600, 12);
  });

  it("reports the round whose corrected ratio is the median, which the uncorrected one would not", () => {
    const steady = round(3000, 2850, 3000, 3000);
    const slowing = round(3000, 2700, 2400, 2400);
    const later = round(3000, 2880, 2760, 3000);
    const rounds = [steady, slowing, later];
    // Beside the attack, corrected: 0.95, 2700/2800 = 0.964, 0.96 (median: later);
    // against the rate alone before the round: 0.95, 0.90, 0.96 (median: steady).
    expect(medianRound(rounds, 1)).toBe(later);
    // Beside the flood, corrected: 1.00, 2400/2600 = 0.923, 0.92 (median: slowing);
    // uncorrected: 1.00, 0.80, 0.92 (median: later).
    expect(medianRound(rounds, 2)).toBe(slowing);
  });
});
