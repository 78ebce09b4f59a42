import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysCommand } from "../../../src/cli/keys.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import { loadConfig } from "../../../src/config.js";
import { nodePublicKeyFromJwk } from "../../../src/core/node/crypto.js";
import { decodeSign1 } from "../../../src/formats/cose/index.js";
import { type RunningService, startService } from "../../../src/server.js";
import { keysFromKeySet, verifyRecordReceipt, verifyStatement } from "../../../src/verify/index.js";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { runCli } from "../../helpers/cli-output.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { vconEvent } from "../../helpers/vcon-event.js";

// Issue 51, rotation with history: `archivist keys rotate` makes a new key sign from then on,
// while everything the old one signed (receipts, statements, checkpoints, tokens until they
// expire, evidence bundles) still verifies with the keys the service publishes; the rotation is a
// record in the log, under a checkpoint. On PostgreSQL the rotation is made while the service runs
// (as from another process: its own keyring) and the service learns of it by re-reading the key
// directory; with the embedded database the service is stopped for it, as users must.
const { dir, dataDir, keyDir, tenant, owner, settings } = bootstrapDir("archivist-rotate-", "Rotating");
let db: { url: string; drop(): Promise<void> } | undefined;
let s: RunningService | undefined;

let port = "0";
const start = async () => {
  // The same address at every start: it names the token issuer, and the old token must stay valid.
  if (port === "0") port = String(await freePort());
  s = await startService(
    loadConfig(
      {},
      settings({ PORT: port, ARCHIVIST_KEY_RELOAD_MS: "100", ...(db ? { DATABASE_URL: db.url } : {}) }),
    ),
  );
  return s;
};
const stop = async () => {
  await s?.close();
  s = undefined;
};

beforeAll(async () => {
  db = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
});
afterAll(async () => {
  await stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const svc = () => s as RunningService;
async function tokenOf(): Promise<string> {
  const res = await fetch(`${svc().url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
const get = (path: string, token?: string) =>
  fetch(`${svc().url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
const bytes = async (path: string, token?: string) =>
  new Uint8Array(await (await get(path, token)).arrayBuffer());
const json = async <T>(path: string, token?: string) => (await (await get(path, token)).json()) as T;
const kidOf = (cose: Uint8Array) =>
  new TextDecoder().decode(decodeSign1(cose).protectedHeader.get(4) as Uint8Array);
const headerKid = (jwt: string) =>
  (JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString()) as { kid: string }).kid;
const publishedKeys = async () =>
  keysFromKeySet(await bytes("/.well-known/scitt-keys"), nodePublicKeyFromJwk);
const file = (name: string, content: string | Uint8Array) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};

describe(`key rotation with history (${testEngine()})`, () => {
  it("a new kid signs from then on; what the old keys signed still verifies; each rotation is a record under a checkpoint", {
    timeout: 240_000,
  }, async () => {
    await start();
    const oldToken = await tokenOf();
    const asset = (await (
      await fetch(`${svc().url}/archivist/v2/assets`, {
        method: "POST",
        headers: { authorization: `Bearer ${oldToken}`, "content-type": "application/json" },
        body: JSON.stringify({ attributes: { arc_display_type: "vcon" } }),
      })
    ).json()) as { identity: string };
    const posted = (await (
      await fetch(`${svc().url}/archivist/v2/${asset.identity}/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${oldToken}`, "content-type": "application/json" },
        body: JSON.stringify(vconEvent(randomUUID(), "vcon_created", "2026-03-04")),
      })
    ).json()) as { identity: string };
    const oldReceipt = await until(async () => {
      await svc().workers.flush();
      const r = await get(`/archivist/v1/receipts/${posted.identity}`, oldToken);
      return r.status === 200 ? new Uint8Array(await r.arrayBuffer()) : undefined;
    });
    const record = await json<Record<string, unknown>>(`/archivist/v2/${posted.identity}`, oldToken);
    const oldStatement = await bytes(`/archivist/v2/${posted.identity}/statement`, oldToken);
    const oldCheckpoint = await (await get(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
    const oldVkey = (await (await get(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
    const oldBundle = await bytes(`/archivist/v1/evidence/assets/${asset.identity.split("/")[1]}`, oldToken);
    const before = await json<{ keys: Array<{ purpose: string; kid: string }> }>("/archivist/v1/keys");
    const oldKid = (purpose: string) => before.keys.find((k) => k.purpose === purpose)?.kid as string;

    // The rotations, as an operator runs them.
    const flags = ["--data-dir", dataDir, "--key-dir", keyDir, ...(db ? ["--database-url", db.url] : [])];
    if (!db) await stop();
    const newKids: Record<string, string> = {};
    for (const purpose of ["seal", "token", "tlog", `issuer:${tenant}`]) {
      const r = await runCli((a) => keysCommand.run(a), ["rotate", purpose, ...flags]);
      expect(r.code, r.out).toBe(0);
      newKids[purpose] = /; (\S+) \(key-directory\) signs from now on/.exec(r.out)?.[1] as string;
      expect(newKids[purpose]).not.toBe(oldKid(purpose));
    }
    if (!db) await start();
    // A running service learns of it by re-reading the key directory (every ARCHIVIST_KEY_RELOAD_MS).
    await until(async () => ([...(await publishedKeys()).keys()][0] === newKids.seal ? true : undefined));
    // Committed and sealed by the new keys: the rotations' records under a checkpoint both log keys signed.
    const newLogKey = (await (await get(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
    await until(async () => {
      await svc().workers.flush();
      const note = await (await get(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
      const cp = verifyCheckpoint(note, { logVkey: newLogKey, witnessVkeys: [], quorum: 0 });
      return cp.ok && cp.checkpoint.size >= 6 ? true : undefined;
    });

    // Seal key: new receipts by the new kid; the old receipt verifies with the published keys,
    // through the library and `archivist verify`.
    const keys = await publishedKeys();
    expect([...keys.keys()]).toEqual(expect.arrayContaining([oldKid("seal"), newKids.seal]));
    const newToken = await tokenOf();
    expect(kidOf(await bytes(`/archivist/v1/receipts/${posted.identity}`, newToken))).toBe(newKids.seal);
    expect(kidOf(oldReceipt)).toBe(oldKid("seal"));
    expect(verifyRecordReceipt(record, oldReceipt, keys).ok).toBe(true);
    const cliVerdict = await runCli(
      (a) => verifyPublicCommand.run(a),
      [
        file("record.json", JSON.stringify(record)),
        "--receipt",
        file("old.cose", oldReceipt),
        "--keys",
        file("keys.cbor", await bytes("/.well-known/scitt-keys")),
      ],
    );
    expect(cliVerdict.code, cliVerdict.out).toBe(0);
    // The bundle exported before the rotation verifies under the key set published after it.
    const bundleVerdict = await runCli(
      (a) => verifyPublicCommand.run(a),
      ["bundle", file("old-bundle.json", oldBundle), "--keys", join(dir, "keys.cbor")],
    );
    expect(bundleVerdict.code, bundleVerdict.out).toBe(0);

    // Token key: the old token is still accepted until it expires; new tokens carry the new kid.
    expect(headerKid(newToken)).toBe(newKids.token);
    expect((await get("/archivist/v2/assets", oldToken)).status).toBe(200);
    const jwks = await json<{ keys: Array<{ kid: string }> }>("/appidpv1/.well-known/jwks.json");
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKids.token, oldKid("token")]);

    // Statements: signed by the new issuer key now; the old one verifies with the published keys.
    expect(kidOf(await bytes(`/archivist/v2/${posted.identity}/statement`, newToken))).toBe(
      newKids[`issuer:${tenant}`],
    );
    expect(verifyStatement(oldStatement, { issuerKeys: keys, serviceKeys: keys }).ok).toBe(true);

    // Log key: the key served is the new one; checkpoints are signed by both during the overlap,
    // so witnesses that pinned the old key keep cosigning; the old checkpoint verifies with the
    // old key, which the log's key history still publishes with its validity.
    const newVkey = (await (await get(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
    expect(newVkey).not.toBe(oldVkey);
    const checkpoint = await (await get(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
    for (const vkey of [oldVkey, newVkey])
      expect(verifyCheckpoint(checkpoint, { logVkey: vkey, witnessVkeys: [], quorum: 0 }).ok).toBe(true);
    const history = await json<{
      keys: Array<{ vkey: string; valid_until: string | null; cosigns_until?: string }>;
    }>(`/archivist/v1/merklelogs/${tenant}/tlog/keys`);
    const oldEntry = history.keys.find((k) => k.vkey === oldVkey);
    expect(oldEntry?.valid_until).toBeTruthy();
    expect(Date.parse(oldEntry?.cosigns_until ?? "")).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(history.keys.find((k) => k.vkey === newVkey)?.valid_until).toBeNull();
    expect(verifyCheckpoint(oldCheckpoint, { logVkey: oldVkey, witnessVkeys: [], quorum: 0 }).ok).toBe(true);
    expect(verifyCheckpoint(oldCheckpoint, { logVkey: newVkey, witnessVkeys: [], quorum: 0 }).ok).toBe(false);

    // Each rotation is a record in the tenancy's log, committed and covered by the newest checkpoint.
    const found = await (
      await fetch(`${svc().url}/archivist/v1/events/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${newToken}`, "content-type": "application/json" },
        body: JSON.stringify({ filter: "attributes/arc_display_type eq 'archivist_key_rotation'" }),
      })
    ).json();
    const rotations = (
      found as { events: Array<Record<string, unknown> & { attributes: Record<string, string> }> }
    ).events;
    expect(
      rotations.map((e) => [e.attributes.key_purpose, e.attributes.old_kid, e.attributes.new_kid]).sort(),
    ).toEqual(["seal", "token", "tlog", `issuer:${tenant}`].map((p) => [p, oldKid(p), newKids[p]]).sort());
    const size = Number(checkpoint.split("\n")[1]);
    for (const found of rotations) {
      const e = await json<{ confirmation_status: string; merklelog_commit: { index: string } }>(
        `/archivist/v1/${String(found.identity)}`,
        newToken,
      );
      expect(e.confirmation_status).toBe("CONFIRMED");
      const index = e.merklelog_commit.index;
      const entry = await json<{ leaf_index: number }>(
        `/archivist/v1/merklelogs/${tenant}/entries/${index}`,
        newToken,
      );
      expect(entry.leaf_index).toBeLessThan(size);
    }
  });
});
