import { Command as Cli } from "commander";
import type { Config } from "../config.js";
import { isUuid } from "../formats/ids.js";
import { KEYS_TOPIC, openContext } from "../server.js";
import { keyManifests } from "../services/operator/key-manifests.js";
import { isRotatablePurpose, rotateKey } from "../services/operator/key-rotation.js";
import { acceptRestore } from "../services/operator/restore-acceptance.js";
import { RedisWakeSignal } from "../wake/redis-wake-signal.js";
import type { Exit } from "./command.js";
import { declaredGroup } from "./declare.js";
import { configFromOptions, withConfigFlags } from "./serve.js";
import { UsageError } from "./usage.js";

/** The settings `archivist keys` reads: where the keys and the database are. */
export const KEY_FLAGS = [
  "data-dir",
  "database-url",
  "key-dir",
  "key-backend",
  "redis-url",
  "log-level",
  "transaction-guard",
];

export const PGLITE_NOTE =
  "With the embedded database (no DATABASE_URL), run it while the service is stopped: one process holds DATA_DIR/pgdata.";

/** Tells every running process to re-read the key directory now (they also do every ARCHIVIST_KEY_RELOAD_MS). */
async function tellProcesses(config: Config, ctx: Awaited<ReturnType<typeof openContext>>): Promise<void> {
  if (!config.redisUrl) return;
  const signal = new RedisWakeSignal({ redisUrl: config.redisUrl, log: ctx.log });
  try {
    await signal.notify(KEYS_TOPIC);
  } catch (err) {
    ctx.log.warn(
      { err },
      "Redis did not take the wake-up: the processes learn of it at their next key reload",
    );
  } finally {
    await signal.close();
  }
}

export async function withContext<T>(
  values: Record<string, unknown>,
  run: (ctx: Awaited<ReturnType<typeof openContext>>, config: Config) => Promise<T>,
): Promise<T> {
  const config = configFromOptions({ logLevel: "warn", ...values });
  const ctx = await openContext(config);
  try {
    return await run(ctx, config);
  } finally {
    await ctx.reads.close();
    await ctx.standby?.close();
    await ctx.logGuard.shared?.heads.close();
    await ctx.db.close();
    await ctx.keys.close();
  }
}

/** `archivist keys list`: every key of the key directory, current and retired, with its validity. */
function listCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("list")
      .description("List every key of the key directory: purpose, kid, algorithm, holder, validity.")
      .option("--json", "the manifests as JSON"),
    KEY_FLAGS,
  ).action(async (values: Record<string, unknown>) => {
    // The key directory alone: no database, so it runs beside a running embedded service too.
    const manifests = await keyManifests(configFromOptions(values).keyDir);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(manifests, null, 2)}\n`);
      exit(0);
      return;
    }
    process.stdout.write("purpose\tkid\talg\tholder\tcreated\tstatus\n");
    for (const m of manifests)
      for (const k of m?.keys ?? [])
        process.stdout.write(
          `${m?.purpose}\t${k.kid}\t${k.alg}\t${k.holder}\t${k.created_at}\t${
            k.retired_at
              ? `retired ${k.retired_at}${k.cosign_until ? ` (co-signs until ${k.cosign_until})` : ""}`
              : "current"
          }\n`,
        );
    exit(0);
  });
}

/** `archivist keys rotate <purpose>`: a new key signs from now on; the rotation is recorded in the log(s). */
function rotateCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("rotate")
      .description(
        `Make a new key for a purpose (seal, token, tlog, tlog-ml-dsa-44, issuer:<tenant uuid>) that signs from now on; the old one stays published, retired. The rotation is recorded in the log of every tenancy it concerns (issuer:<tenant>: that one). Running processes take the new key within ARCHIVIST_KEY_RELOAD_MS (at once with Redis). ${PGLITE_NOTE}`,
      )
      .argument("<purpose>", "the key's purpose")
      .option(
        "--cosign-days <n>",
        "a log key (tlog, tlog-ml-dsa-44): how many days the old key goes on co-signing every checkpoint, so witnesses can move to the new one",
        "30",
      ),
    KEY_FLAGS,
  ).action(async (purpose: string, values: Record<string, unknown>) => {
    if (!isRotatablePurpose(purpose))
      throw new UsageError(
        `"${purpose}" is no key purpose: seal, token, tlog, tlog-ml-dsa-44 or issuer:<tenant uuid> (docs/keys.md)`,
      );
    const cosignDays = Number(values.cosignDays);
    if (!Number.isFinite(cosignDays) || cosignDays < 0)
      throw new UsageError(`--cosign-days takes a number of days, got "${String(values.cosignDays)}"`);
    await withContext(values, async (ctx, config) => {
      const { rotation: r, recorded } = await rotateKey(ctx, purpose, cosignDays);
      await tellProcesses(config, ctx);
      process.stdout.write(
        `${purpose}: ${r.old.kid} retired at ${r.new.created_at}; ${r.new.kid} (${r.new.holder}) signs from now on\n` +
          `recorded in ${recorded.length} log(s): ${recorded.join(", ")}\n`,
      );
    });
    exit(0);
  });
}

/** A log named `tenant/<uuid>` or by its uuid. */
function tenantOf(log: string): string {
  const uuid = log.replace(/^tenant\//, "").toLowerCase();
  if (!isUuid(uuid)) throw new UsageError(`--log takes tenant/<uuid> or <uuid>, got "${log}"`);
  return uuid;
}

/**
 * `archivist keys accept-restore --log <tenant>`: the operator accepts that the database no longer
 * holds what the service signed for a log; recorded in the key directory and in the log itself.
 */
function acceptRestoreCommand(exit: Exit): Cli {
  return withConfigFlags(
    new Cli("accept-restore")
      .description(
        `Accept that a log's database is behind, or disagrees with, what the service last signed for it (after a restore), so the service signs it again. What was lost is recorded in the key directory (state/<tenant>.accepted.jsonl) and as an event in the log. The next checkpoint will not be consistent with the ones witnesses cosigned: see docs/keys.md. ${PGLITE_NOTE}`,
      )
      .requiredOption("--log <tenant>", "the log: tenant/<uuid>")
      .option("--note <text>", "why, for the record", ""),
    KEY_FLAGS,
  ).action(async (values: Record<string, unknown>) => {
    const tenant = tenantOf(String(values.log));
    const code = await withContext(values, async (ctx, config) => {
      const done = await acceptRestore(ctx, tenant, String(values.note ?? ""));
      // A log the service does not have is a mistake to say so, not "nothing to accept"; the
      // command failed (1): 2 is a verdict's status, which only verify and export give.
      if (done.outcome === "no-log") {
        process.stdout.write(
          `FAILED log tenant/${tenant}: no such log (no tenancy of that id in this database)\n`,
        );
        return 1;
      }
      if (done.outcome === "consistent") {
        process.stdout.write(
          `log tenant/${tenant}: its database holds what the service last signed; nothing to accept\n`,
        );
        return 0;
      }
      await tellProcesses(config, ctx);
      process.stdout.write(
        `${done.held.reason}\naccepted: the service signs log tenant/${tenant} again from its database; recorded as ${done.recordedAs}\n`,
      );
      return 0;
    });
    exit(code);
  });
}

export const keysCommand = declaredGroup("keys", "The service's keys in the key directory (docs/keys.md).", [
  listCommand,
  rotateCommand,
  acceptRestoreCommand,
]);
