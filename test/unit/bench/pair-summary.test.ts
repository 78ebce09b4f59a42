import { describe, expect, it } from "vitest";
import { Results } from "../../../bench/results.js";
import { type Measured, reportSummary } from "../../../bench/scenarios/pair.js";

const round = (mine: [number, number | undefined], theirs: [number, number | undefined]): Measured => ({
  name: "ingest",
  unit: "event",
  mine: { machine: mine[0], server: mine[1], rate: 1000 },
  theirs: { machine: theirs[0], server: theirs[1], rate: 1000 },
});

const ratioRow = (results: Results, what: string) =>
  results.rows.find((r) => r.metric === `ingest: ${what} CPU per event, this ÷ other (median of the rounds)`);

describe("pair's summary", () => {
  it("reports the database's share (machine less server) beside the machine's and the server's ratios", () => {
    const results = new Results();
    // Database: 100 ÷ 90 and 160 ÷ 160; server: 200 ÷ 190 and 170 ÷ 160; machine: 300 ÷ 280 and 330 ÷ 320
    // (rows keep three significant figures).
    reportSummary({ results }, [round([300, 200], [280, 190]), round([330, 170], [320, 160])]);
    expect(ratioRow(results, "database")?.value).toBeCloseTo((100 / 90 + 1) / 2, 2);
    expect(ratioRow(results, "server")?.value).toBeCloseTo((200 / 190 + 170 / 160) / 2, 2);
    expect(ratioRow(results, "machine")?.value).toBeCloseTo((300 / 280 + 330 / 320) / 2, 2);
    expect(ratioRow(results, "database")?.note).toMatch(/^2 rounds: 1\.111, 1\.000/);
  });

  it("leaves out of the database's ratio a round whose server CPU was not read", () => {
    const results = new Results();
    reportSummary({ results }, [round([300, undefined], [280, 190]), round([330, 170], [320, 160])]);
    expect(ratioRow(results, "database")?.value).toBe(1);
    expect(ratioRow(results, "database")?.note).toMatch(/^1 rounds: 1\.000/);
  });
});
