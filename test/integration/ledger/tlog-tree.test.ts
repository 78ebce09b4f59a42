import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdTimestampGenerator } from "../../../src/core/log/idtimestamp.js";
import { appendLeaves } from "../../../src/core/log/mmr-append.js";
import { inclusionProofNodes, rootNodes } from "../../../src/core/log/tree-proof.js";
import { nodeSha256 } from "../../../src/core/node/crypto.js";
import { leafCount } from "../../../src/formats/mmr/index.js";
import { inclusionProof, leafHash, treeRoot, verifyInclusion } from "../../../src/formats/rfc9162/index.js";
import type { Db, Queryable } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { loadLog } from "../../../src/store/ledger/ledger.js";
import { nodeKey, readTlogLevel, readTlogNodes, tlogSize } from "../../../src/store/ledger/tlog-nodes.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { commitBatch } from "../../../src/workers/commit-batch.js";
import { LogFrontiers } from "../../../src/workers/log-frontiers.js";
import { backfillTree, logsBehind } from "../../../src/workers/tlog-backfill.js";
import { assetEventRow, tenancyWithAsset } from "../../helpers/asset-event-row.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

// One sequence, two commitments: every committed entry is a leaf of the MMR and of the
// RFC 9162 tree, in leaf order, whether appended by the commit or by the backfill.
describe(`the RFC 9162 tree beside the MMR (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("tlog-tree"));
    await migrate(db);
  });
  afterAll(async () => close?.());

  async function tenancyWithEvents(n: number) {
    const { tenant, asset } = await tenancyWithAsset(db);
    await insertAssetEvents(
      db,
      Array.from({ length: n }, () => assetEventRow(tenant, asset)),
    );
    return tenant;
  }

  async function getter(tenant: string, coords: Array<{ level: number; idx: number }>) {
    const m = await readTlogNodes(db, tenant, coords);
    return (l: number, i: number) => {
      const h = m.get(nodeKey(l, i));
      if (!h) throw new Error(`missing ${l}/${i}`);
      return h;
    };
  }

  /** The tree's leaves must be the entries' MMR leaves, in leaf order, and its proofs must verify. */
  async function expectTreeOfEntries(tenant: string) {
    const entries = await db.query<{ leaf: Uint8Array }>(
      "select leaf from log_entries where tenant_id = $1 order by leaf_index",
      [tenant],
    );
    const size = await tlogSize(db, tenant);
    expect(size).toBe(entries.length);
    const leaves = await readTlogLevel(db, tenant, 0, 0, size);
    expect(leaves.map((l) => Buffer.from(l).toString("hex"))).toEqual(
      entries.map((e) => Buffer.from(leafHash(new Uint8Array(e.leaf))).toString("hex")),
    );
    const root = treeRoot(size, await getter(tenant, rootNodes(size)));
    for (const m of [0, 1, size - 1, Math.floor(size / 2)]) {
      const proof = inclusionProof(m, size, await getter(tenant, inclusionProofNodes(m, size)));
      expect(verifyInclusion(m, size, leaves[m] as Uint8Array, proof, root)).toBe(true);
    }
    return root;
  }

  it("appends each commit's entries to the tree in the same transaction", async () => {
    const tenant = await tenancyWithEvents(23);
    const gen = new IdTimestampGenerator(3);
    for (const limit of [1, 5, 7, 10]) await db.transaction((tx) => commitBatch(tx, tenant, gen, limit));
    const log = await loadLog(db, tenant);
    expect(leafCount(log.mmr_size)).toBe(23);
    await expectTreeOfEntries(tenant);
    expect(await logsBehind(db)).not.toContain(tenant);
  });

  it("backfills logs committed without the tree, then the commits carry on appending", async () => {
    const tenant = await tenancyWithEvents(40);
    const gen = new IdTimestampGenerator(4);
    // As an earlier version committed: the MMR alone.
    for (const limit of [9, 9])
      await db.transaction((tx) => commitBatch(tx, tenant, gen, limit, undefined, { tree: false }));
    expect(await tlogSize(db, tenant)).toBe(0);
    expect(await logsBehind(db)).toContain(tenant);
    // A commit while the tree is behind leaves the tree to the backfill.
    await db.transaction((tx) => commitBatch(tx, tenant, gen, 4));
    expect(await tlogSize(db, tenant)).toBe(0);
    expect((await db.transaction((tx) => backfillTree(tx, tenant, 5))).count).toBe(5);
    expect((await db.transaction((tx) => backfillTree(tx, tenant, 100))).count).toBe(17);
    expect(await logsBehind(db)).not.toContain(tenant);
    await db.transaction((tx) => commitBatch(tx, tenant, gen, 100));
    await expectTreeOfEntries(tenant);
  });

  /** The MMR's stored nodes must be those its leaves make, appended from nothing. */
  async function expectMmrOfEntries(tenant: string) {
    const entries = await db.query<{ leaf: Uint8Array }>(
      "select leaf from log_entries where tenant_id = $1 order by leaf_index",
      [tenant],
    );
    const expected = appendLeaves(
      0,
      entries.map((e) => new Uint8Array(e.leaf)),
      () => {
        throw new Error("an empty MMR reads no node");
      },
      nodeSha256,
    );
    const stored = await db.query<{ hash: Uint8Array }>(
      "select hash from mmr_nodes where tenant_id = $1 order by idx",
      [tenant],
    );
    expect(stored.map((n) => Buffer.from(n.hash).toString("hex"))).toEqual(
      expected.nodes.map((n) => Buffer.from(n).toString("hex")),
    );
  }

  it("commits from this process's remembered frontiers, and reads the nodes again after another's commit or a backfill", async () => {
    const tenant = await tenancyWithEvents(60);
    const gen = new IdTimestampGenerator(5);
    const frontiers = new LogFrontiers();
    /** One batch with the frontiers, as the committer runs it; how many node reads it made. */
    const commitHere = async (limit: number) => {
      let reads = 0;
      const r = await db.transaction((tx) => {
        const counted: Queryable = {
          query: (sql, params, opts) => {
            if (/from (mmr_nodes|tlog_nodes)/.test(sql)) reads++;
            return tx.query(sql, params, opts);
          },
        };
        return commitBatch(counted, tenant, gen, limit, undefined, { frontiers });
      });
      if (r.frontier) frontiers.remember(tenant, r.frontier);
      return reads;
    };
    expect(await commitHere(3)).toBe(0); // an empty log has no frontier to read
    expect(await commitHere(7)).toBe(0);
    expect(await commitHere(5)).toBe(0);
    // Another process commits: the log's size is not the one remembered, so both are read.
    await db.transaction((tx) => commitBatch(tx, tenant, new IdTimestampGenerator(6), 4));
    expect(await commitHere(6)).toBe(2);
    expect(await commitHere(2)).toBe(0);
    // A commit without the tree (as before the tree existed) leaves it behind until the backfill.
    await db.transaction((tx) => commitBatch(tx, tenant, gen, 5, undefined, { tree: false }));
    expect(await commitHere(4)).toBe(1); // the MMR's nodes; the tree does not take the batch
    await db.transaction((tx) => backfillTree(tx, tenant, 100));
    expect(await commitHere(9)).toBe(2);
    expect(await commitHere(20)).toBe(0);
    expect(leafCount((await loadLog(db, tenant)).mmr_size)).toBe(60);
    await expectMmrOfEntries(tenant);
    await expectTreeOfEntries(tenant);
  });
});
