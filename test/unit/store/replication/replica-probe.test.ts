import { describe, expect, it } from "vitest";
import type { Db } from "../../../../src/store/drivers/db.js";
import { replicaReads } from "../../../../src/store/replication/replica-reads.js";

/**
 * A primary whose WAL-position probes answer only when told, and a replica URL nobody serves:
 * every read ends on the primary, after the probe it waited for.
 */
function primary() {
  const probes: Array<{ resolve: (lsn: string) => void; at: number }> = [];
  const statements: string[] = [];
  let clock = 0;
  const db: Db = {
    kind: "postgres",
    async query<R>(sql: string): Promise<R[]> {
      if (sql.includes("pg_current_wal_flush_lsn")) {
        const lsn = await new Promise<string>((resolve) => probes.push({ resolve, at: clock++ }));
        return [{ lsn }] as R[];
      }
      statements.push(sql);
      return [] as R[];
    },
    transaction: (fn) => fn(db),
    ping: async () => undefined,
    close: async () => undefined,
  };
  return { db, probes, statements };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("the primary's WAL position a replica read waits for", () => {
  it("is read by a probe sent after the read asked, shared by the reads that asked meanwhile", async () => {
    const p = primary();
    // Port 1: refused at once, so each read falls back to the primary after its probe.
    const reads = replicaReads(p.db, "postgres://postgres@127.0.0.1:1/none", {
      waitMs: 0,
      log: { error: () => undefined },
    });
    const first = reads.query("select 'a'");
    await tick();
    expect(p.probes).toHaveLength(1);
    // Asked while the first probe is out: that probe may have read the position before a
    // commit these readers saw, so they wait for the next one, which they share.
    const second = reads.query("select 'b'");
    const third = reads.query("select 'c'");
    await tick();
    expect(p.probes).toHaveLength(1);
    p.probes[0]?.resolve("0/10");
    await first;
    await tick();
    expect(p.probes).toHaveLength(2);
    p.probes[1]?.resolve("0/20");
    await Promise.all([second, third]);
    expect(p.probes).toHaveLength(2);
    expect(p.statements).toEqual(["select 'a'", "select 'b'", "select 'c'"]);
    expect(reads.served).toEqual({ replica: 0, primary: 3 });
    await reads.close();
  });
});
