import { describe, expect, it } from "vitest";
import { sqlTime } from "../../../../src/store/drivers/sql-time.js";

describe("sqlTime", () => {
  it("writes ISO 8601 as PostgreSQL reads it, a year past 9999 without JavaScript's sign", () => {
    expect(sqlTime(new Date("2026-11-26T14:30:00.125Z"))).toBe("2026-11-26T14:30:00.125Z");
    expect(sqlTime(new Date(Date.UTC(12000, 0, 1)))).toBe("012000-01-01T00:00:00.000Z");
    expect(sqlTime(new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)))).toBe("9999-12-31T23:59:59.999Z");
    expect(sqlTime(new Date("0001-02-03T04:05:06.007Z"))).toBe("0001-02-03T04:05:06.007Z");
  });
});
