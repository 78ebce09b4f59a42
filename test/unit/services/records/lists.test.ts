import { describe, expect, it } from "vitest";
import { type ListRequest, totalFor } from "../../../../src/services/records/lists.js";

const LIMIT = 10_000;

/** A request, the seqs its page query fetched, and what the count and the estimate would answer. */
async function decide(opts: {
  req?: Partial<ListRequest>;
  seqs: number[];
  descending?: boolean;
  matches: number;
  planned: number;
}) {
  const req: ListRequest = {
    pairs: [],
    pageSize: 3,
    cursor: 0,
    firstPage: true,
    wantCount: false,
    ...opts.req,
  };
  const calls: string[] = [];
  const total = await totalFor(
    req,
    LIMIT,
    { seqs: opts.seqs, descending: opts.descending ?? true },
    async (cap) => {
      calls.push(`count≤${cap}`);
      return Math.min(opts.matches, cap);
    },
    async () => {
      calls.push("estimate");
      return opts.planned;
    },
  );
  return { total, calls };
}

// Four matches among the newest 40 of 1,000,000 rows: 100,000 in all at that density.
const dense = [1_000_000, 999_990, 999_980, 999_961];
// Four matches spread over the newest 400,000 rows: about 10 in all.
const sparse = [1_000_000, 900_000, 800_000, 600_001];

describe("the total of a list page (x-total-count, 206)", () => {
  it("takes the first page's own rows as the exact total when they are all there is", async () => {
    for (const wantCount of [false, true])
      expect(await decide({ req: { wantCount }, seqs: [9, 5], matches: 2, planned: 90_000 })).toEqual({
        total: 2,
        calls: [],
      });
  });

  it("when asked, counts exactly up to the limit and estimates past it; later pages only when asked", async () => {
    // Past the limit the interface calls the total approximate, asked for or not.
    for (const firstPage of [true, false])
      expect(
        await decide({ req: { wantCount: true, firstPage }, seqs: dense, matches: 123_456, planned: 90_000 }),
      ).toEqual({ total: 90_000, calls: ["estimate"] });
    expect(
      await decide({
        req: { wantCount: true, firstPage: false },
        seqs: sparse,
        matches: 8_000,
        planned: 90_000,
      }),
    ).toEqual({ total: 8_000, calls: [`count≤${LIMIT + 1}`] });
    expect(await decide({ req: { firstPage: false }, seqs: dense, matches: 9, planned: 9 })).toEqual({
      total: undefined,
      calls: [],
    });
  });

  it("trusts the planner past the limit only when the page's density agrees", async () => {
    expect(await decide({ seqs: dense, matches: 100_000, planned: 90_000 })).toEqual({
      total: 90_000,
      calls: ["estimate"],
    });
    // The planner would overestimate (statistics say 1 in 10), the newest rows say otherwise:
    // counted, and the planner not asked at all.
    expect(await decide({ seqs: sparse, matches: 8_000, planned: 90_000 })).toEqual({
      total: 8_000,
      calls: [`count≤${LIMIT + 1}`],
    });
    // Recent rows match densely but the planner sees few matches overall: count.
    expect(await decide({ seqs: dense, matches: 300, planned: 300 })).toEqual({
      total: 300,
      calls: ["estimate", `count≤${LIMIT + 1}`],
    });
    // Ascending pages start at the oldest rows: their density says nothing about the rest.
    expect(await decide({ seqs: [1, 2, 3, 4], descending: false, matches: 8_000, planned: 90_000 })).toEqual({
      total: 8_000,
      calls: [`count≤${LIMIT + 1}`],
    });
  });

  it("answers the capped count past the limit, raised to the estimate when that is higher", async () => {
    expect(await decide({ seqs: sparse, matches: 50_000, planned: 15_000 })).toEqual({
      total: 15_000,
      calls: [`count≤${LIMIT + 1}`, "estimate"],
    });
    expect(await decide({ seqs: sparse, matches: 50_000, planned: 5_000 })).toEqual({
      total: LIMIT + 1,
      calls: [`count≤${LIMIT + 1}`, "estimate"],
    });
    // The same past the limit when the planner was asked first and not trusted: asked once.
    expect(await decide({ seqs: dense, matches: 50_000, planned: 15_000 })).toEqual({
      total: 15_000,
      calls: ["estimate", `count≤${LIMIT + 1}`],
    });
  });
});
