import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import { ed25519PublicKey, formatVkey } from "../../../src/core/log/note-sign.js";
import { ED25519, parseVkey } from "../../../src/formats/tlog/index.js";
import { runCli } from "../../helpers/cli-output.js";
import { leafPreimage } from "../../helpers/leaf-preimage.js";
import { until } from "../../helpers/poll.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { newAsset, postVconEvent, untilSealed } from "../../helpers/vcon-event.js";
import { vectorPublicKey, vectorStatement } from "../../helpers/vector-key.js";

/*
 * The fourth hostile pass (issue 55), as it ran: a service, `archivist verify` from the same
 * build, the tenancy's log key pinned with --log-key. A record whose content was changed, or
 * made up, never verifies on any path (receipt, tlog-proof, the log's tiles, an evidence
 * bundle), whatever payload it carries; a policy's witnesses, min-trust and max-age are enforced
 * on tlog-proofs.
 */
const publicLog = randomUUID();
let s: TestService;
let token: string;
const dir = mkdtempSync(join(tmpdir(), "fourth-pass-"));
const file = (name: string, data: string | Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};
const verify = (args: string[]) => runCli((a) => verifyCommand.run(a), args);
// `archivist verify bundle` is the public verifier's subcommand, not a file given to `verify`.
const verifyBundle = (args: string[]) => runCli((a) => verifyPublicCommand.run(a), args);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
type Rec = Record<string, unknown>;

beforeAll(async () => {
  s = await startTestService(
    {
      ARCHIVIST_SEAL_INTERVAL_MS: "100",
      ARCHIVIST_SCITT_PUBLIC_LOG: publicLog,
      ARCHIVIST_SCRAPI_WAIT_MS: "30000",
    },
    {},
    {},
    { a: publicLog },
  );
  token = await s.token(s.a);
  await trustVectorKey(s, token);
}, 120_000);
afterAll(() => s?.stop());

/** A record's tlog-proof once a published checkpoint covers it. */
const proofOf = (identity: string) =>
  until(async () => {
    const r = await s.api(`/archivist/v1/tlog-proofs/${identity}`, { token });
    if (r.status === 409) return undefined;
    expect(r.status, await r.clone().text()).toBe(200);
    return r.text();
  });

interface Genuine {
  event: Rec;
  statementRecord: Rec;
  statement: Uint8Array;
  tenant: string;
  logKey: string;
  eventProof: string;
  statementProof: string;
  keysFile: string;
}

let g: Genuine;
async function genuine(): Promise<Genuine> {
  if (g) return g;
  const asset = await newAsset(s, token);
  const made = await postVconEvent(s, token, asset, randomUUID(), "vcon_create", "2026-11-01");
  const statement = vectorStatement(55);
  const registered = await s.api("/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: Buffer.from(statement),
  });
  expect(registered.status, await registered.clone().text()).toBe(201);
  const entry = (registered.headers.get("location") as string).replace(/^\/entries\/events_/, "");
  await untilSealed(s, token, asset);
  const eventProof = await proofOf(made.identity);
  const statementProof = await proofOf(`events/${entry}`);
  const event = (await (await s.api(`/archivist/v2/${made.identity}`, { token })).json()) as Rec;
  const statementRecord = (await (await s.api(`/archivist/v1/events/${entry}`, { token })).json()) as Rec;
  const tenant = String(event.tenant_identity).replace("tenant/", "");
  const logKey = (await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
  const keysFile = file(
    "keys.cbor",
    new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()),
  );
  g = { event, statementRecord, statement, tenant, logKey, eventProof, statementProof, keysFile };
  return g;
}

describe("forged records are refused on every path (issue 55)", () => {
  it("the genuine records verify: the fixture is right", async () => {
    const { event, statementRecord, logKey, eventProof, statementProof, tenant } = await genuine();
    const key = file("log.vkey", logKey);
    expect(
      (
        await verify([
          file("event.json", JSON.stringify(event)),
          "--tlog-proof",
          file("e.proof", eventProof),
          "--log-key",
          key,
        ])
      ).code,
    ).toBe(0);
    const mirror = `${s.url}/archivist/v1/merklelogs/${tenant}/tlog`;
    expect(
      (await verify([file("event.json", JSON.stringify(event)), "--mirror", mirror, "--log-key", key])).code,
    ).toBe(0);
    // A registered statement: its leaf is the payload's hash, its subject the issuer's signature.
    const issuerKey = file("issuer.jwk", JSON.stringify(vectorPublicKey.jwk));
    const rec = file("statement.json", JSON.stringify(statementRecord));
    const proof = file("s.proof", statementProof);
    const withKey = await verify([
      rec,
      "--tlog-proof",
      proof,
      "--log-key",
      key,
      "--issuer-key",
      `test-key-1=${issuerKey}`,
    ]);
    expect(withKey, withKey.out).toMatchObject({ code: 0 });
    expect(withKey.out).toMatch(/a registered statement: its payload is log entry \d+/);
    const without = await verify([rec, "--tlog-proof", proof, "--log-key", key]);
    expect(without, without.out).toMatchObject({ code: 4 });
    expect(without.out).toMatch(/--issuer-key test-key-1=/);
  });

  it("content changed and the genuine leaf's preimage injected as attributes.payload: exit 1 by tlog-proof, tiles, receipt and bundle", async () => {
    const { event, logKey, eventProof, tenant, keysFile } = await genuine();
    const forged = {
      ...event,
      event_attributes: { ...(event.event_attributes as Rec), subject: "vcon://someone-else" },
      attributes: { payload: hex(leafPreimage(event)) },
    };
    const rec = file("forged.json", JSON.stringify(forged));
    const key = file("log.vkey", logKey);
    const byProof = await verify([rec, "--tlog-proof", file("e.proof", eventProof), "--log-key", key]);
    expect(byProof, byProof.out).toMatchObject({ code: 1 });
    expect(byProof.out).toMatch(/^TAMPERED/m);
    const byTiles = await verify([
      rec,
      "--mirror",
      `${s.url}/archivist/v1/merklelogs/${tenant}/tlog`,
      "--log-key",
      key,
    ]);
    expect(byTiles, byTiles.out).toMatchObject({ code: 1 });
    const receipt = new Uint8Array(
      await (await s.api(`/archivist/v1/receipts/${String(event.identity)}`, { token })).arrayBuffer(),
    );
    const byReceipt = await verify([rec, "--receipt", file("r.cose", receipt), "--keys", keysFile]);
    expect(byReceipt, byReceipt.out).toMatchObject({ code: 1 });

    const asset = String(event.identity).replace(/\/events\/.*$/, "");
    const bundle = (await (await s.api(`/archivist/v1/evidence/${asset}`, { token })).json()) as {
      records: Array<{ record: Rec }>;
    };
    const one = bundle.records.find((r) => r.record.identity === event.identity) as { record: Rec };
    one.record.event_attributes = forged.event_attributes;
    one.record.attributes = forged.attributes;
    const byBundle = await verifyBundle([
      "bundle",
      file("bundle.json", JSON.stringify(bundle)),
      "--keys",
      keysFile,
    ]);
    expect(byBundle, byBundle.out).toMatchObject({ code: 1 });
    expect(byBundle.out).toMatch(/TAMPERED/);
  });

  it("a made-up asset event carrying a registered statement's payload and commit: exit 1", async () => {
    const { event, statementRecord, logKey, statementProof } = await genuine();
    const madeUp = {
      ...event,
      identity: `assets/${randomUUID()}/events/${randomUUID()}`,
      event_attributes: { arc_display_type: "anything", subject: "vcon://made-up" },
      attributes: { payload: (statementRecord.attributes as Rec).payload },
      merklelog_entry: { commit: statementRecord.merklelog_commit },
    };
    const out = await verify([
      file("made-up.json", JSON.stringify(madeUp)),
      "--tlog-proof",
      file("s.proof", statementProof),
      "--log-key",
      file("log.vkey", logKey),
    ]);
    expect(out, out.out).toMatchObject({ code: 1 });
  });

  it("a registered statement's record with its subject and event_type edited: exit 1, the edited field named", async () => {
    const { statementRecord, logKey, statementProof } = await genuine();
    const issuerKey = file("issuer.jwk", JSON.stringify(vectorPublicKey.jwk));
    const subject = {
      ...statementRecord,
      attributes: { ...(statementRecord.attributes as Rec), subject: "vcon://someone-else" },
    };
    const both = { ...subject, event_type: "vcon_consent_revoked" };
    const verifyEdited = (r: Rec) =>
      verify([
        file("edited.json", JSON.stringify(r)),
        "--tlog-proof",
        file("s.proof", statementProof),
        "--log-key",
        file("log.vkey", logKey),
        "--issuer-key",
        `test-key-1=${issuerKey}`,
      ]);
    for (const r of [subject, both]) {
      const out = await verifyEdited(r);
      expect(out, out.out).toMatchObject({ code: 1 });
    }
    const named = await verifyEdited(subject);
    expect(named.out).toMatch(/attributes\.subject differ/);
  });
});

describe("a registered statement's record and its receipts", () => {
  it("verifies with its MMR receipt; its RFC 9162 receipt is the statement's, and the verifier says so", async () => {
    const { statementRecord, keysFile } = await genuine();
    const rec = file("statement.json", JSON.stringify(statementRecord));
    const receipt = async (q: string) =>
      file(
        `r${q}.cose`,
        new Uint8Array(
          await (
            await s.api(`/archivist/v1/receipts/${String(statementRecord.identity)}${q}`, { token })
          ).arrayBuffer(),
        ),
      );
    const mmr = await verify([rec, "--receipt", await receipt(""), "--keys", keysFile]);
    expect(mmr, mmr.out).toMatchObject({ code: 0 });
    const tree = await verify([rec, "--receipt", await receipt("?profile=rfc9162"), "--keys", keysFile]);
    expect(tree, tree.out).toMatchObject({ code: 4 });
    expect(tree.out).toMatch(/archivist verify statement\.cose --receipt/);
  });
});

describe("a policy is enforced on tlog-proofs (issue 55)", () => {
  const witness = formatVkey("witness.example/w1", 0x04, ed25519PublicKey(new Uint8Array(32).fill(3)));
  it("a witness quorum the checkpoint lacks, min-trust witnessed and an unestablished max-age: exit 3", async () => {
    const { event, logKey, eventProof } = await genuine();
    const rec = file("event.json", JSON.stringify(event));
    const proof = file("e.proof", eventProof);
    for (const lines of [
      [`log ${logKey}`, `witness w1 ${witness}`, "quorum w1"],
      [`log ${logKey}`, "min-trust witnessed"],
      [`log ${logKey}`, "max-age 1s"],
    ]) {
      const out = await verify([
        rec,
        "--tlog-proof",
        proof,
        "--policy",
        file("policy.txt", lines.join("\n")),
      ]);
      expect(out.code, `${lines.join(" | ")}\n${out.out}`).toBe(3);
      expect(out.out).toMatch(/^POLICY FAILED/m);
    }
    // The policy met: verified.
    const met = await verify([rec, "--tlog-proof", proof, "--policy", file("policy.txt", `log ${logKey}\n`)]);
    expect(met, met.out).toMatchObject({ code: 0 });
    // Two logs of the service in one policy (one key, two origins) are read, and either is judged.
    const k = parseVkey(logKey);
    const other = formatVkey(
      k.name.replace(/merklelogs\/[0-9a-f-]{36}\/tlog$/, `merklelogs/${randomUUID()}/tlog`),
      ED25519,
      k.publicKey,
    );
    const two = await verify([
      rec,
      "--tlog-proof",
      proof,
      "--policy",
      file("policy.txt", `log ${other}\nlog ${logKey}\n`),
    ]);
    expect(two, two.out).toMatchObject({ code: 0 });
  });
});
