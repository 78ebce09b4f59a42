import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ed25519Signer, signNote } from "../../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import { formatPeriodLink, periodLinkLeaf } from "../../../../src/formats/tlog/period-link.js";
import { type PeriodChain, verifyPeriodChain } from "../../../../src/verify/tlog/period.js";
import { inclusionPath, mth } from "./reference-tree.js";
import { checkpointOf, ORIGIN, trust } from "./test-log.js";

const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]), straight from the definition (SUBPROOF). */
function consistency(m: number, d: Uint8Array[], b = true): Uint8Array[] {
  if (m === d.length) return b ? [] : [mth(d)];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return m <= k
    ? [...consistency(m, d.slice(0, k), b), mth(d.slice(k))]
    : [...consistency(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

const checkpoint = checkpointOf;

const data = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => new Uint8Array(32).fill(from + i));

// Period 0: five entries; period 1: its link and three more; period 2 (open): its link and four more.
const p0 = data(5, 1);
const link1 = periodLinkLeaf({ period: 1, origin: ORIGIN, size: 5, root: mth(p0) });
const upTo1 = [...p0, link1, ...data(3, 20)];
const link2 = periodLinkLeaf({ period: 2, origin: ORIGIN, size: upTo1.length, root: mth(upTo1) });
const all = [...upTo1, link2, ...data(4, 40)];

function chainOf(entries: Uint8Array[]): PeriodChain {
  const closed = (period: number, start: number, end: number) => ({
    period,
    start,
    end,
    checkpoint: checkpoint(entries.slice(0, end)),
    consistency: consistency(end, entries).map(b64),
    linkInclusion: inclusionPath(end, entries).map(b64),
  });
  return {
    periods: [closed(0, 0, 5), closed(1, 5, 9), { period: 2, start: 9 }],
    head: checkpoint(entries, true),
  };
}

describe("log periods: the link entry", () => {
  it("is SHA-256 of its text, known answer", () => {
    const root = new Uint8Array(32).fill(0xab);
    const text = formatPeriodLink({ period: 1, origin: ORIGIN, size: 5, root });
    expect(text).toBe(
      `archivist.log-period/v1\nperiod 1\n${ORIGIN}\n5\nq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=\n`,
    );
    const leaf = periodLinkLeaf({ period: 1, origin: ORIGIN, size: 5, root });
    expect(Buffer.from(leaf).toString("hex")).toBe(createHash("sha256").update(text).digest("hex"));
    expect(Buffer.from(leaf).toString("hex")).toBe(
      "6f3859f3f596d3c94b286d0729a8dc051c9b1a59999d9f77346054efdc29e423",
    );
  });

  it("refuses what no period closes", () => {
    const root = new Uint8Array(32);
    expect(() => formatPeriodLink({ period: 0, origin: ORIGIN, size: 5, root })).toThrow();
    expect(() => formatPeriodLink({ period: 1, origin: ORIGIN, size: 0, root })).toThrow();
    expect(() => formatPeriodLink({ period: 1, origin: "a\nb", size: 5, root })).toThrow();
    expect(() =>
      formatPeriodLink({ period: 1, origin: ORIGIN, size: 5, root: new Uint8Array(31) }),
    ).toThrow();
  });
});

describe("log periods: following the chain of period roots", () => {
  it("verifies a chain of two closed periods and an open one, witnessed", () => {
    const v = verifyPeriodChain(chainOf(all), trust);
    expect(v).toMatchObject({ ok: true, origin: ORIGIN, cosigners: ["witness.example/w"] });
    if (!v.ok) return;
    expect(v.head.size).toBe(14);
    expect(v.periods.map((p) => [p.period, p.start, p.end])).toEqual([
      [0, 0, 5],
      [1, 5, 9],
      [2, 9, undefined],
    ]);
    expect(b64(v.periods[1]?.root as Uint8Array)).toBe(b64(mth(upTo1)));
  });

  it("verifies a log that was never closed (one open period)", () => {
    expect(
      verifyPeriodChain({ periods: [{ period: 0, start: 0 }], head: checkpoint(p0, true) }, trust),
    ).toMatchObject({
      ok: true,
    });
  });

  it("fails when a link commits anything else than the final checkpoint", () => {
    // A tree whose entry 5 links to a root other than period 0's final one.
    const wrong = periodLinkLeaf({ period: 1, origin: ORIGIN, size: 5, root: new Uint8Array(32).fill(9) });
    const forged = [...p0, wrong, ...all.slice(6)];
    const v = verifyPeriodChain(chainOf(forged), trust);
    expect(v).toMatchObject({ ok: false });
    expect(v.ok ? "" : v.reason).toMatch(/entry 5 of the head is not period 1's link/);
    // The link's period number is committed too.
    const renumbered = periodLinkLeaf({ period: 2, origin: ORIGIN, size: 5, root: mth(p0) });
    expect(verifyPeriodChain(chainOf([...p0, renumbered, ...all.slice(6)]), trust).ok).toBe(false);
  });

  it("fails when a final checkpoint is not consistent with the head, or not the log's", () => {
    const c = chainOf(all);
    const other = data(5, 100);
    const bad = {
      ...c,
      periods: c.periods.map((p) => (p.period === 0 ? { ...p, checkpoint: checkpoint(other) } : p)),
    };
    expect(verifyPeriodChain(bad, trust)).toMatchObject({ ok: false });
    const otherKey = signNote(formatCheckpoint({ origin: ORIGIN, size: 5, root: mth(p0), extensions: [] }), [
      ed25519Signer(ORIGIN, new Uint8Array(32).fill(3)),
    ]);
    const unsigned = {
      ...c,
      periods: c.periods.map((p) => (p.period === 0 ? { ...p, checkpoint: otherKey } : p)),
    };
    const v = verifyPeriodChain(unsigned, trust);
    expect(v.ok ? "" : v.reason).toMatch(/period 0's final checkpoint/);
  });

  it("fails on gaps, overlaps, a closed last period and an unwitnessed head", () => {
    const c = chainOf(all);
    const [a, b, open] = c.periods as [
      PeriodChain["periods"][0],
      PeriodChain["periods"][0],
      PeriodChain["periods"][0],
    ];
    expect(verifyPeriodChain({ ...c, periods: [a, open] }, trust).ok).toBe(false);
    expect(verifyPeriodChain({ ...c, periods: [a, { ...b, start: 4 }, open] }, trust).ok).toBe(false);
    expect(verifyPeriodChain({ ...c, periods: [a, b] }, trust).ok).toBe(false);
    expect(verifyPeriodChain({ ...c, periods: [a, { ...b, end: undefined }, open] }, trust).ok).toBe(false);
    expect(verifyPeriodChain({ ...c, head: checkpoint(all) }, trust)).toMatchObject({ ok: false });
    expect(verifyPeriodChain({ ...c, periods: [] }, trust).ok).toBe(false);
  });

  it("fails while the head does not yet include the next period's link", () => {
    const closedAt = chainOf(upTo1);
    const v = verifyPeriodChain(
      {
        periods: [
          closedAt.periods[0] as PeriodChain["periods"][0],
          { period: 1, start: 5, end: 9, checkpoint: checkpoint(upTo1), consistency: [], linkInclusion: [] },
          { period: 2, start: 9 },
        ],
        head: checkpoint(upTo1, true),
      },
      trust,
    );
    expect(v.ok ? "" : v.reason).toMatch(/does not yet include period 2's first entry 9/);
  });
});
