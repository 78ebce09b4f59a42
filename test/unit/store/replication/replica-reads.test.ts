import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../../src/config.js";
import { lsnValue } from "../../../../src/store/replication/standby.js";

describe("WAL positions as the read-replica gate compares them", () => {
  it("orders positions by their high half, then their low half", () => {
    expect(lsnValue("0/0")).toBe(0n);
    expect(lsnValue("0/16B3748")).toBe(0x16b3748n);
    expect(lsnValue("1/0")).toBe(1n << 32n);
    expect(lsnValue("A/FFFFFFFF")).toBe((10n << 32n) | 0xffffffffn);
    // Compared as text, 9/… would sort after 10/…; as positions it comes before.
    expect(lsnValue("9/FFFFFFFF") < lsnValue("10/0")).toBe(true);
    expect(() => lsnValue("16B3748")).toThrow();
  });
});

describe("DATABASE_READ_URL", () => {
  it("is a replica of DATABASE_URL: refused without it, reads on the primary when unset", () => {
    expect(() => loadConfig({}, { DATABASE_READ_URL: "postgres://r/x" })).toThrow(ConfigError);
    const c = loadConfig({}, { DATABASE_URL: "postgres://p/x", DATABASE_READ_URL: "postgres://r/x" });
    expect(c.databaseReadUrl).toBe("postgres://r/x");
    expect(c.readWaitMs).toBe(50);
    expect(loadConfig({}, { DATABASE_URL: "postgres://p/x" }).databaseReadUrl).toBeUndefined();
  });
});

describe("DATABASE_STANDBY_URL", () => {
  it("is a standby of DATABASE_URL: refused without it, none when unset, not taken from the read URL", () => {
    expect(() => loadConfig({}, { DATABASE_STANDBY_URL: "postgres://s/x" })).toThrow(ConfigError);
    const c = loadConfig({}, { DATABASE_URL: "postgres://p/x", DATABASE_STANDBY_URL: "postgres://s/x" });
    expect(c.databaseStandbyUrl).toBe("postgres://s/x");
    expect(c.standbyWaitMs).toBe(5000);
    const reads = loadConfig({}, { DATABASE_URL: "postgres://p/x", DATABASE_READ_URL: "postgres://r/x" });
    expect(reads.databaseStandbyUrl).toBeUndefined();
  });
});
