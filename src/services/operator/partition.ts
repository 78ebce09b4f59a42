import { type PartitionReport, partitionByTenancy } from "../../store/archive/partitioning.js";
import { openDb } from "../../store/drivers/open.js";

/** The tables `archivist partition` partitions, for the command's help. */
export { PARTITIONED_TABLES } from "../../store/archive/partitioning.js";

/**
 * `archivist partition`: hash-partitions the record and log tables by tenancy on the configured
 * database, opened for this alone and closed after (store/archive/partitioning.ts does the work).
 */
export async function partitionDatabase(
  config: Parameters<typeof openDb>[0],
  partitions: number,
): Promise<PartitionReport[]> {
  const db = await openDb(config);
  try {
    return await partitionByTenancy(db, { partitions });
  } finally {
    await db.close();
  }
}
