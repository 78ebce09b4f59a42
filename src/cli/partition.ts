import { Command as Cli, InvalidArgumentError } from "commander";
import { PARTITIONED_TABLES, partitionDatabase } from "../services/operator/partition.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { configFromOptions, withConfigFlags } from "./serve.js";

function partitionsArg(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 2 || n > 1024) throw new InvalidArgumentError("an integer from 2 to 1024");
  return n;
}

/**
 * `archivist partition`: an explicit step, not a migration. It rewrites the record and log tables whole
 * under an exclusive lock, seconds per million rows, which an upgrade that runs every migration
 * at start must not do unasked to a large deployment; an operator chooses its moment (and its
 * number of partitions, which is fixed once chosen).
 */
export const partitionCommand = declared((exit: Exit) =>
  withConfigFlags(
    new Cli("partition")
      .description(
        `Hash-partition the record and log tables (${PARTITIONED_TABLES.join(", ")}) by tenancy, on a database with data in it: one transaction copies their rows into the partitions and swaps the names, writers waiting meanwhile; the record tables' unique keys take the tenancy as their last column. Run it while the service is stopped or idle (with PGlite, stopped). Run again, it does nothing.`,
      )
      .option("--partitions <n>", "how many hash partitions (2-1024; fixed once made)", partitionsArg, 16),
    ["data-dir", "database-url", "log-level"],
  ).action(async (values: Record<string, unknown>) => {
    const report = await partitionDatabase(configFromOptions(values), values.partitions as number);
    for (const r of report)
      process.stdout.write(
        `${r.table}: ${r.outcome === "already" ? "already partitioned" : "partitioned"}, ${r.partitions} partitions, ${r.rows} rows\n`,
      );
    exit(0);
  }),
);
