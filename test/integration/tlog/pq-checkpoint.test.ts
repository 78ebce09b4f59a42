import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mlDsa44Keys } from "../../../src/core/log/ml-dsa-sign.js";
import { formatVkey } from "../../../src/core/log/note-sign.js";
import { ML_DSA_44, parseNote } from "../../../src/formats/tlog/index.js";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { type RunningWitness, startWitness } from "../../../src/witness/server.js";
import { WitnessState } from "../../../src/witness/state.js";
import { publishedKey } from "../../helpers/log-key.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * Post-quantum checkpoints: the log signs every checkpoint with Ed25519 and ML-DSA-44 (C2SP
 * tlog-checkpoint, tlog-cosignature type 0x06), an `archivist witness` with an ML-DSA-44 key
 * cosigns it, and each signature verifies with its own vkey.
 */
const WITNESS = "witness.test/pq";
const dir = mkdtempSync(join(tmpdir(), "pq-witness-"));
const seed = randomBytes(32);
writeFileSync(join(dir, "key-ml-dsa-44"), `${seed.toString("base64")}\n`, { mode: 0o600 });
const witnessVkey = formatVkey(WITNESS, ML_DSA_44, mlDsa44Keys(new Uint8Array(seed)).publicKey);
const port = await freePort();

let s: TestService;
let witness: RunningWitness | undefined;
let prefix: string;
let logVkey: string;
let logPqVkey: string;
let origin: string;

beforeAll(async () => {
  s = await startTestService({
    ARCHIVIST_WITNESSES: `${witnessVkey} http://127.0.0.1:${port}`,
    ARCHIVIST_WITNESS_QUORUM: "1",
  });
  const token = await s.token(s.a);
  const log = await tenancyLog(s, token, "pq");
  prefix = log.prefix;
  await s.service.workers.flush();
  logVkey = await publishedKey(() => s.api(`${prefix}/key`));
  logPqVkey = await publishedKey(() => s.api(`${prefix}/key-ml-dsa-44`));
  origin = logVkey.split("+")[0] as string;
  witness = await startWitness(
    {
      name: WITNESS,
      state: new WitnessState(dir),
      logs: [logVkey],
      log: pino({ level: "silent" }),
      keyType: "ml-dsa-44",
    },
    { host: "127.0.0.1", port },
  );
}, 120_000);
afterAll(async () => {
  await witness?.close();
  await s?.stop();
});

describe("post-quantum checkpoints", () => {
  it("the ML-DSA-44 witness's vkey is the one configured", () => {
    expect(witness?.vkey).toBe(witnessVkey);
    expect(logPqVkey.startsWith(`${origin}+`)).toBe(true);
  });

  it("a checkpoint carries Ed25519 and ML-DSA-44 log signatures and an ML-DSA-44 witness cosignature, each verifying", async () => {
    const note = await until(async () => {
      await s.service.workers.flush();
      const text = await (await s.api(`${prefix}/checkpoint`)).text();
      return parseNote(text).signatures.some((x) => x.name === WITNESS) ? text : undefined;
    }, 30_000);
    const sigs = parseNote(note).signatures;
    expect(
      sigs
        .filter((x) => x.name === origin)
        .map((x) => x.signature.length)
        .sort((a, b) => a - b),
    ).toEqual([64, 8 + 2420]);
    expect(sigs.find((x) => x.name === WITNESS)?.signature.length).toBe(8 + 2420);
    // The Ed25519 log key and the ML-DSA-44 one each verify the checkpoint alone; the witness's counts.
    for (const key of [logVkey, logPqVkey])
      expect(verifyCheckpoint(note, { logVkey: key, witnessVkeys: [witnessVkey], quorum: 1 })).toMatchObject({
        ok: true,
        cosigners: [WITNESS],
      });
    // A changed root: no signature holds.
    const lines = note.split("\n");
    lines[2] = Buffer.alloc(32, 9).toString("base64");
    for (const key of [logVkey, logPqVkey])
      expect(verifyCheckpoint(lines.join("\n"), { logVkey: key, witnessVkeys: [], quorum: 0 }).ok).toBe(
        false,
      );
  });

  it("the witness serves what it cosigned at GET <prefix>/<sha256(origin)>/checkpoint, and 404 for another log", async () => {
    const hash = createHash("sha256").update(origin).digest("hex");
    const res = await fetch(`${witness?.url}/${hash}/checkpoint`);
    expect(res.status).toBe(200);
    const note = await res.text();
    expect(verifyCheckpoint(note, { logVkey, witnessVkeys: [witnessVkey], quorum: 1 }).ok).toBe(true);
    expect((await fetch(`${witness?.url}/${"0".repeat(64)}/checkpoint`)).status).toBe(404);
  });
});
