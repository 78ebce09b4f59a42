import { Command as Cli } from "commander";
import type { Config } from "../config.js";
import { isUuid } from "../formats/ids.js";
import { KEYS_TOPIC, openContext } from "../server.js";
import { recordServiceEvent } from "../services/ledger/service-events.js";
import type { Rotation } from "../store/keyring.js";
import { KeyDirectory } from "../store/keystore/key-directory.js";
import type { SignedLogState } from "../store/keystore/signed-state.js";
import { compareWithSigned, stateOf } from "../store/log-guard.js";
import { getSeal } from "../store/seals.js";
import { getTenancy, listTenancies } from "../store/tenancies.js";
import { RedisWakeSignal } from "../wake/redis-wake-signal.js";
import type { Exit } from "./commands.js";
import { declaredGroup } from "./declare.js";
import { configFromOptions, withConfigFlags } from "./serve.js";

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
    const dir = new KeyDirectory(configFromOptions(values).keyDir);
    const manifests = [];
    for (const p of await dir.purposes()) manifests.push(await dir.manifest(p));
    if (values.json) process.stdout.write(`${JSON.stringify(manifests, null, 2)}\n`);
    else
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

/** The attributes of a rotation's record in a log. */
function rotationEvent(r: Rotation): Record<string, string> {
  return {
    arc_display_type: "archivist_key_rotation",
    arc_description: `the service's ${r.purpose} key ${r.old.kid} was retired and ${r.new.kid} signs from ${r.new.created_at}`,
    key_purpose: r.purpose,
    key_alg: r.new.alg,
    old_kid: r.old.kid,
    old_valid_from: r.old.created_at,
    old_valid_until: r.new.created_at,
    new_kid: r.new.kid,
    new_valid_from: r.new.created_at,
    new_public_jwk: JSON.stringify(r.new.public_jwk),
    ...(r.old.cosign_until === undefined ? {} : { old_cosigns_until: r.old.cosign_until }),
  };
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
    const cosignDays = Number(values.cosignDays);
    if (!Number.isFinite(cosignDays) || cosignDays < 0)
      throw new Error("--cosign-days takes a number of days");
    await withContext(values, async (ctx, config) => {
      const r = await ctx.keys.rotate(purpose, { cosignDays });
      const issuerOf = /^issuer:(.+)$/.exec(purpose)?.[1];
      const tenants = issuerOf ? [issuerOf] : (await listTenancies(ctx.db)).map((t) => t.id);
      const recorded: string[] = [];
      for (const t of tenants) {
        const e = await recordServiceEvent(ctx, t, rotationEvent(r));
        recorded.push(String(e.identity));
      }
      ctx.log.warn(
        { purpose, old_kid: r.old.kid, new_kid: r.new.kid, holder: r.new.holder, recorded_in: recorded },
        "key rotated",
      );
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
  if (!isUuid(uuid)) throw new Error(`--log takes tenant/<uuid> or <uuid>, got "${log}"`);
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
      // A log the service does not have is a mistake to say so, not "nothing to accept".
      if (!(await getTenancy(ctx.db, tenant))) {
        process.stdout.write(
          `FAILED log tenant/${tenant}: no such log (no tenancy of that id in this database)\n`,
        );
        return 2;
      }
      const signed = await ctx.logGuard.states.read(tenant);
      const held = signed && (await compareWithSigned(ctx.db, signed));
      if (!held) {
        process.stdout.write(
          `log tenant/${tenant}: its database holds what the service last signed; nothing to accept\n`,
        );
        return 0;
      }
      const seal = await getSeal(ctx.db, tenant);
      const now: SignedLogState = seal
        ? await stateOf(ctx.db, tenant, seal)
        : { tenant_id: tenant, mmr_size: 0, peaks: [], signed_at: new Date().toISOString() };
      const acceptance = {
        tenant_id: tenant,
        accepted_at: new Date().toISOString(),
        signed: held.signed,
        database: held.database,
        missing_leaves: held.missing_leaves,
        reason: held.reason,
        note: String(values.note ?? ""),
      };
      await ctx.logGuard.states.recordAcceptance(acceptance);
      await ctx.logGuard.states.write(now);
      const e = await recordServiceEvent(ctx, tenant, {
        arc_display_type: "archivist_restore_accepted",
        arc_description: held.reason,
        accepted_at: acceptance.accepted_at,
        signed_mmr_size: String(held.signed.mmr_size),
        signed_tree_size: String(held.signed.tree_size ?? ""),
        signed_root: held.signed.root ?? "",
        signed_at: held.signed.signed_at,
        database_mmr_size: String(held.database.mmr_size),
        database_tree_size: String(held.database.tree_size),
        missing_leaves: held.missing_leaves ? `${held.missing_leaves[0]}-${held.missing_leaves[1] - 1}` : "",
        note: acceptance.note,
      });
      ctx.log.warn(
        { ...acceptance, recorded_as: e.identity },
        "restore accepted: the log is signed again from its database",
      );
      await tellProcesses(config, ctx);
      process.stdout.write(
        `${held.reason}\naccepted: the service signs log tenant/${tenant} again from its database; recorded as ${String(e.identity)}\n`,
      );
      return 0;
    });
    exit(code);
  });
}

export const keysCommand = declaredGroup(
  "the service's keys: list, rotate, accept a restore (docs/keys.md)",
  "keys",
  "The service's keys in the key directory (docs/keys.md).",
  [listCommand, rotateCommand, acceptRestoreCommand],
);
