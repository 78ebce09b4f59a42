import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { ed25519KeySigner, signNote } from "../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../src/core/log/tlog-format.js";
import { formatAddCheckpoint } from "../../../src/core/log/witness.js";
import { parseCheckpoint, parseNote } from "../../../src/formats/tlog/index.js";
import { TLOG_KEY } from "../../../src/store/ledger/tlog-checkpoints.js";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { ed25519PublicBytes } from "../../../src/workers/checkpoint.js";
import { runCli } from "../../helpers/cli-output.js";
import { publishedKey } from "../../helpers/log-key.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { prepareWitness, runWitness, stopWitness } from "../../helpers/witness-process.js";

let s: TestService;
let token: string;
let prefix: string;
let logVkey: string;
const w1 = prepareWitness("witness.test/one", await freePort());
const w2 = prepareWitness("witness.test/two", await freePort());

async function newEvent(asset: string): Promise<string> {
  const res = await postEvent(s, token, asset, evidence({ arc_display_type: "w" }));
  return ((await res.json()) as { identity: string }).identity;
}
const read = async (id: string) =>
  (await (await s.api(`/archivist/v2/${id}`, { token })).json()) as Record<string, unknown>;
const checkpoint = async () => (await fetch(`${prefix}/checkpoint`)).text();

let asset: string;
beforeAll(async () => {
  s = await startTestService({
    ARCHIVIST_WITNESSES: `${w1.vkey} ${w1.url}; ${w2.vkey} ${w2.url}`,
    ARCHIVIST_WITNESS_QUORUM: "2",
  });
  token = await s.token(s.a);
  const log = await tenancyLog(s, token, "w");
  asset = log.asset.identity;
  prefix = `${s.url}${log.prefix}`;
  await s.service.workers.flush();
  logVkey = await publishedKey(() => fetch(`${prefix}/key`));
}, 90_000);
afterAll(async () => {
  await stopWitness(w1);
  await stopWitness(w2);
  await s?.stop();
});

describe("witnesses (C2SP tlog-witness, tlog-cosignature)", () => {
  it("two witness processes cosign; a record is UNEQUIVOCAL only with their quorum", async () => {
    await runWitness(w1, logVkey);
    const id = await newEvent(asset);
    await s.service.workers.flush();
    await until(async () => ((await checkpoint()).includes(`\u2014 ${w1.name} `) ? true : undefined), 60_000);
    await s.service.workers.flush();
    // Sealed, anchored on the node chain and cosigned by one witness of the two needed.
    const one = await read(id);
    expect(one.confirmation_status).toBe("CONFIRMED");
    expect((one.merklelog_entry as { unequivocal: unknown }).unequivocal).toBeNull();
    expect(
      verifyCheckpoint(await checkpoint(), { logVkey, witnessVkeys: [w1.vkey, w2.vkey], quorum: 2 }),
    ).toMatchObject({
      ok: false,
    });

    await runWitness(w2, logVkey);
    const note = await until(async () => {
      const n = await checkpoint();
      return verifyCheckpoint(n, { logVkey, witnessVkeys: [w1.vkey, w2.vkey], quorum: 2 }).ok ? n : undefined;
    }, 60_000);
    expect(verifyCheckpoint(note, { logVkey, witnessVkeys: [w1.vkey, w2.vkey], quorum: 2 })).toMatchObject({
      ok: true,
      cosigners: [w1.name, w2.name],
    });
    await s.service.workers.flush();
    const both = await until(async () => {
      const r = await read(id);
      return r.confirmation_status === "UNEQUIVOCAL" ? r : undefined;
    }, 60_000);
    expect((both.merklelog_entry as { unequivocal: unknown }).unequivocal).not.toBeNull();

    // The library and the CLI check the quorum against the log's own tiles.
    const dir = mkdtempSync(join(tmpdir(), "witnessed-"));
    writeFileSync(join(dir, "r.json"), JSON.stringify(both));
    const args = [join(dir, "r.json"), "--mirror", prefix, "--witness", w1.vkey, "--witness", w2.vkey];
    const cosignedByBoth = await runCli((a) => verifyCommand.run(a), args);
    expect(cosignedByBoth.code, cosignedByBoth.out).toBe(0);
    expect(cosignedByBoth.out).toMatch(/^VERIFIED \(witnessed\): .* cosigned by witness-1, witness-2/m);
    // A policy file: C2SP tlog-policy with a 2-of-3 group (the third witness never cosigned).
    const third = prepareWitness("witness.test/three", await freePort());
    const policy = join(dir, "policy.txt");
    writeFileSync(
      policy,
      `log ${logVkey}\nwitness one ${w1.vkey}\nwitness two ${w2.vkey}\nwitness three ${third.vkey}\ngroup w 2 one two three\nquorum w\n`,
    );
    const byPolicy = await runCli(
      (a) => verifyCommand.run(a),
      [args[0] as string, "--mirror", prefix, "--policy", policy],
    );
    expect(byPolicy.code, byPolicy.out).toBe(0);
    expect(byPolicy.out).toMatch(/^VERIFIED \(witnessed\): .* cosigned by one, two/m);
    writeFileSync(
      policy,
      `witness one ${w1.vkey}\nwitness three ${third.vkey}\ngroup w 2 one three\nquorum w\n`,
    );
    const short = await runCli(
      (a) => verifyCommand.run(a),
      [args[0] as string, "--mirror", prefix, "--policy", policy],
    );
    expect(short.code, short.out).toBe(3);
    expect(short.out).toMatch(
      /^POLICY FAILED: .*lacks the witness quorum \(cosigned by one of your witnesses\)/m,
    );
    const quorumOfOne = await runCli((a) => verifyCommand.run(a), [...args.slice(0, 5), "--quorum", "2"]);
    // More cosignatures than the witnesses given is a question with no answer, not a verdict.
    expect(quorumOfOne.code).toBe(4);
    expect(quorumOfOne.out).toMatch(/^CANNOT EVALUATE: --quorum must be 1\.\.1/m);
    // Two witness processes start from the sources here (tsx): seconds each on a loaded machine.
  }, 120_000);

  it("names each witness, the quorum and each one's newest cosignature on a public route, never its URL", async () => {
    const note = await checkpoint();
    const size = parseCheckpoint(parseNote(note).text).size;
    const r = await fetch(`${prefix}/witnesses`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as {
      quorum: number;
      witnesses: Array<{ name: string; last_cosigned_size: number; last_cosigned_at: string }>;
    };
    expect(body.quorum).toBe(2);
    expect(body.witnesses.map((w) => [w.name, w.last_cosigned_size])).toEqual([
      [w1.name, size],
      [w2.name, size],
    ]);
    expect(body.witnesses[0]).toMatchObject({ algorithm: "Ed25519", vkey: w1.vkey });
    expect(Date.parse(body.witnesses[1]?.last_cosigned_at ?? "")).toBeGreaterThan(Date.now() - 3_600_000);
    expect(JSON.stringify(body)).not.toContain(w1.url);
    const unknown = await fetch(`${s.url}/archivist/v1/merklelogs/${crypto.randomUUID()}/tlog/witnesses`);
    expect(unknown.status).toBe(404);
  });

  it("a witness refuses a forked checkpoint, and still does after a restart", async () => {
    const logKey = await s.service.ctx.keys.get(TLOG_KEY, "Ed25519");
    const cp = parseCheckpoint(parseNote(await checkpoint()).text);
    const signer = ed25519KeySigner(cp.origin, ed25519PublicBytes(logKey), logKey.signSync!);
    // A second log state of the same origin and size, signed by the log's own key.
    const forked = signNote(formatCheckpoint({ ...cp, root: new Uint8Array(randomBytes(32)) }), [signer]);
    const post = (body: string) => fetch(`${w1.url}/add-checkpoint`, { method: "POST", body });

    const sameSize = await post(formatAddCheckpoint({ oldSize: cp.size, proof: [], note: forked }));
    expect(sameSize.status).toBe(422);
    const stale = await post(formatAddCheckpoint({ oldSize: 0, proof: [], note: forked }));
    expect(stale.status).toBe(409);
    expect(stale.headers.get("content-type")).toBe("text/x.tlog.size");
    expect(await stale.text()).toBe(`${cp.size}\n`);

    await stopWitness(w1);
    await runWitness(w1, logVkey);
    const bigger = signNote(
      formatCheckpoint({ ...cp, size: cp.size + 1, root: new Uint8Array(randomBytes(32)) }),
      [signer],
    );
    const afterRestart = await post(
      formatAddCheckpoint({ oldSize: cp.size, proof: [new Uint8Array(32)], note: bigger }),
    );
    expect(afterRestart.status).toBe(422);
    expect((await post(formatAddCheckpoint({ oldSize: cp.size, proof: [], note: forked }))).status).toBe(422);
    // Its monitoring view is the checkpoint it cosigned, with the log's signature and its own.
    const originHash = createHash("sha256").update(cp.origin).digest("hex");
    const kept = await (await fetch(`${w1.url}/${originHash}/checkpoint`)).text();
    expect(parseCheckpoint(parseNote(kept).text).root).toEqual(cp.root);
    expect(verifyCheckpoint(kept, { logVkey, witnessVkeys: [w1.vkey], quorum: 1 }).ok).toBe(true);

    // The log's real next checkpoint is still cosigned, from the size the witness holds.
    await newEvent(asset);
    await s.service.workers.flush();
    await until(async () => {
      const n = await checkpoint();
      const v = verifyCheckpoint(n, { logVkey, witnessVkeys: [w1.vkey, w2.vkey], quorum: 2 });
      return v.ok && v.checkpoint.size > cp.size ? true : undefined;
    }, 60_000);
  }, 120_000);
});
