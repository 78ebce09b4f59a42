import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import {
  COSIGNATURE_V1,
  ed25519PublicKey,
  formatVkey,
  verifyCheckpoint,
} from "../../../src/verify/tlog/index.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { runCli } from "../../helpers/cli-output.js";
import { publishedKey } from "../../helpers/log-key.js";
import { until } from "../../helpers/poll.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * A log period's final checkpoint is witnessed where witnesses are configured: an `archivist
 * witness` process cosigns it (before the newer checkpoint the close makes at once), and the
 * chain of period roots verifies with the witness's key and quorum.
 */
const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

const witnessDir = mkdtempSync(join(tmpdir(), "period-witness-"));
const seed = randomBytes(32);
writeFileSync(join(witnessDir, "key"), `${seed.toString("base64")}\n`, { mode: 0o600 });
const name = "period.test/witness";
const witnessPort = await freePort();
const witnessUrl = `http://127.0.0.1:${witnessPort}`;
const witnessVkey = formatVkey(name, COSIGNATURE_V1, ed25519PublicKey(new Uint8Array(seed)));
let witness: ChildProcess | undefined;
let s: TestService;
let token: string;

beforeAll(async () => {
  s = await startTestService({
    ARCHIVIST_WITNESSES: `${witnessVkey} ${witnessUrl}`,
    ARCHIVIST_WITNESS_QUORUM: "1",
  });
  token = await s.token(s.a);
}, 90_000);
afterAll(async () => {
  if (witness && witness.exitCode === null) {
    const exited = new Promise((r) => witness?.once("exit", r));
    witness.kill("SIGKILL");
    await exited;
  }
  await s?.stop();
});

describe("a log period's final checkpoint and witnesses", () => {
  it("is cosigned by the configured witness, and the chain verifies with its quorum", async () => {
    const asset = (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token,
        json: { attributes: { arc_display_type: "w" } },
      })
    ).json()) as { identity: string; tenant_identity: string };
    const tenant = asset.tenant_identity.replace("tenant/", "");
    const prefix = `${s.url}/archivist/v1/merklelogs/${tenant}/tlog`;
    await s.service.workers.flush();
    const logVkey = await publishedKey(() => fetch(`${prefix}/key`));
    witness = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        MAIN,
        "witness",
        "--dir",
        witnessDir,
        "--name",
        name,
        "--log",
        logVkey,
        "--port",
        String(witnessPort),
      ],
      { env: { ...process.env, LOG_LEVEL: "warn" }, stdio: ["ignore", "ignore", "inherit"] },
    );
    await until(
      () =>
        fetch(`${witnessUrl}/`).then(
          () => true,
          () => undefined,
        ),
      30_000,
      100,
    );
    for (let i = 0; i < 5; i++)
      await s.api(`/archivist/v2/${asset.identity}/events`, {
        method: "POST",
        token,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { arc_display_type: "w", i: String(i) },
        },
      });
    const trust = { logVkey, witnessVkeys: [witnessVkey], quorum: 1 };
    await until(async () => {
      await s.service.workers.flush();
      const note = await (await fetch(`${prefix}/checkpoint`)).text();
      return Number(note.split("\n")[1]) >= 6 && verifyCheckpoint(note, trust).ok ? note : undefined;
    }, 60_000);
    const ctx = s.service.ctx;
    const keys = await loadSealKeys(ctx);
    const closed = await ctx.db.transaction((tx) => closeLogPeriod(tx, tenant, keys, ctx.logGuard));
    expect(closed?.end).toBeGreaterThanOrEqual(6);
    // The final checkpoint is cosigned first, then the head that holds the link.
    const chain = await until(async () => {
      await s.service.workers.flush();
      const c = (await (await fetch(`${prefix}/periods`)).json()) as {
        head: string;
        periods: Array<{ checkpoint?: string }>;
      };
      const final = c.periods[0]?.checkpoint;
      return final && verifyCheckpoint(final, trust).ok && verifyCheckpoint(c.head, trust).ok ? c : undefined;
    }, 60_000);
    expect(chain.periods).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), "period-witness-cli-"));
    writeFileSync(join(dir, "log.vkey"), logVkey);
    writeFileSync(
      join(dir, "keys.cbor"),
      new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    const v = await runCli(
      (a) => verifyCommand.run(a),
      [
        "--log",
        tenant,
        "--url",
        s.url,
        "--log-key",
        join(dir, "log.vkey"),
        "--witness",
        witnessVkey,
        "--keys",
        join(dir, "keys.cbor"),
      ],
    );
    expect(v.out).toMatch(/its 2 periods chain/);
    expect(v.code, v.out).toBe(0);
  }, 180_000);
});
