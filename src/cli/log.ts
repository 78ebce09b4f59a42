import { join } from "node:path";
import { Command as Cli } from "commander";
import { CodedError } from "../formats/coded-error.js";
import { isUuid } from "../formats/ids.js";
import { logPeriods } from "../services/ledger/log-periods.js";
import { archiveClosedPeriods, dropArchivedPeriods } from "../workers/log-archive.js";
import { closeLogPeriod } from "../workers/log-period.js";
import { loadSealKeys } from "../workers/seal-keys.js";
import { signingLimit } from "../workers/seal-log.js";
import type { Exit } from "./command.js";
import { declaredGroup } from "./declare.js";
import { KEY_FLAGS, PGLITE_NOTE, withContext } from "./keys.js";
import { withConfigFlags } from "./serve.js";
import { UsageError } from "./usage.js";

/** What `archivist log` reads: the database, the keys, and the base URL the seals name as issuer. */
const LOG_FLAGS = [...KEY_FLAGS, "base-url", "witnesses", "witness-quorum", "database-standby-url"];

function tenantOf(arg: string): string {
  const uuid = arg.replace(/^tenant\//, "");
  if (!isUuid(uuid)) throw new UsageError(`a log is named tenant/<uuid> or <uuid>, got "${arg}"`);
  return uuid.toLowerCase();
}

/** `archivist log close <tenant>`: closes the log's open period now (docs/scaling.md, "Log periods"). */
function closeCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("close")
      .description(
        `Close a tenancy's open log period now: its final checkpoint is signed (and goes to the witnesses), and the next period's first entry commits its origin, size and root. Give the service's BASE_URL (the seals name it). ${PGLITE_NOTE}`,
      )
      .argument("<log>", "the tenancy's log: tenant/<uuid> or <uuid>"),
    LOG_FLAGS,
  ).action(async (log: string, values: Record<string, unknown>) => {
    const tenantId = tenantOf(log);
    const code = await withContext(values, async (ctx) => {
      const keys = await loadSealKeys(ctx);
      const upTo = await signingLimit(ctx.standby, tenantId);
      if (upTo === "nothing")
        throw new Error(
          `tenant/${tenantId}: the standby (DATABASE_STANDBY_URL) cannot be read or is not the primary's: nothing is signed until it is`,
        );
      let closed: Awaited<ReturnType<typeof closeLogPeriod>>;
      try {
        closed = await ctx.logGuard.signing(tenantId, () =>
          ctx.db.transaction((tx) => closeLogPeriod(tx, tenantId, keys, ctx.logGuard, upTo)),
        );
      } catch (err) {
        // Refused (a held log, a tree still backfilled): the transaction wrote nothing.
        if (!(err instanceof CodedError && err.code === "PERIOD_NOT_CLOSABLE")) throw err;
        process.stdout.write(`FAILED tenant/${tenantId}: ${err.message}\n`);
        return 1;
      }
      if (!closed)
        process.stdout.write(`tenant/${tenantId}: nothing to close (no entry since the period began)\n`);
      else
        process.stdout.write(
          `tenant/${tenantId}: period ${closed.period} closed at ${closed.end} entries (root ${Buffer.from(closed.root).toString("hex")}); period ${closed.period + 1} begins at entry ${closed.end}\n`,
        );
      return 0;
    });
    exit(code);
  });
}

/** `archivist log periods <tenant>`: the log's periods, as the database holds them. */
function periodsCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("periods")
      .description(
        `List a tenancy's log periods: number, first entry, final size and root, when closed. ${PGLITE_NOTE}`,
      )
      .argument("<log>", "the tenancy's log: tenant/<uuid> or <uuid>")
      .option("--json", "as JSON"),
    LOG_FLAGS,
  ).action(async (log: string, values: Record<string, unknown>) => {
    const tenantId = tenantOf(log);
    await withContext(values, async (ctx) => {
      const shaped = await logPeriods(ctx, tenantId);
      if (values.json) process.stdout.write(`${JSON.stringify(shaped, null, 2)}\n`);
      else
        for (const p of shaped)
          process.stdout.write(
            `${p.period}\t${p.start}\t${p.end ?? "open"}\t${p.root ?? ""}\t${p.closed_at ?? ""}\t${p.dropped_at ? "dropped" : p.archived_at ? "archived" : ""}\n`,
          );
    });
    exit(0);
  });
}

/** `archivist log archive <tenant> [--drop]`: closed periods to object storage (docs/scaling.md). */
function archiveCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("archive")
      .description(
        `Move a tenancy's closed log periods to the blob store (ARCHIVIST_BLOB_STORE: a directory by default, or S3): their tiles, entry bundles, MMR nodes and final checkpoints. With --drop, their node rows then leave the database (as \`archivist log drop\`); every proof is still served, from the archive. Safe to run again after a crash. ${PGLITE_NOTE}`,
      )
      .argument("<log>", "the tenancy's log: tenant/<uuid> or <uuid>")
      .option("--drop", "drop the archived periods' node rows from the database afterwards"),
    [...LOG_FLAGS, "blob-store"],
  ).action(async (log: string, values: Record<string, unknown>) => {
    const tenantId = tenantOf(log);
    await withContext(values, async (ctx, config) => {
      const archived = await archiveClosedPeriods(
        { db: ctx.db, blobs: ctx.blobs, tmpDir: join(config.dataDir, "blobs", "tmp") },
        tenantId,
      );
      process.stdout.write(
        archived
          ? `tenant/${tenantId}: periods ${archived.periods.join(", ")} archived (${archived.objects} objects stored)\n`
          : `tenant/${tenantId}: no closed period left to archive\n`,
      );
      if (values.drop) writeDropped(tenantId, await dropArchivedPeriods(ctx, tenantId));
    });
    exit(0);
  });
}

function writeDropped(tenantId: string, d: Awaited<ReturnType<typeof dropArchivedPeriods>>): void {
  process.stdout.write(
    d
      ? `tenant/${tenantId}: periods ${d.periods.join(", ")} dropped from the database (${d.tree} tree nodes, ${d.mmr} MMR nodes)\n`
      : `tenant/${tenantId}: no archived period left to drop\n`,
  );
}

/** `archivist log drop <tenant>`: archived periods' node rows leave the database. */
function dropCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("drop")
      .description(
        `Drop the node rows of a tenancy's archived log periods from the database (after checking that the archive gives their final root and peaks); proofs are then read from the archive. ${PGLITE_NOTE}`,
      )
      .argument("<log>", "the tenancy's log: tenant/<uuid> or <uuid>"),
    [...LOG_FLAGS, "blob-store"],
  ).action(async (log: string, values: Record<string, unknown>) => {
    const tenantId = tenantOf(log);
    await withContext(values, async (ctx) =>
      writeDropped(tenantId, await dropArchivedPeriods(ctx, tenantId)),
    );
    exit(0);
  });
}

export const logCommand = declaredGroup("log", 'A tenancy\'s log periods (docs/scaling.md, "Log periods").', [
  closeCommand,
  periodsCommand,
  archiveCommand,
  dropCommand,
]);
