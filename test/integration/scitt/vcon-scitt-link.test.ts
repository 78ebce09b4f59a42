import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signSign1 } from "../../../src/core/log/sign1.js";
import { type CborValue, decodeCbor } from "../../../src/formats/cbor/index.js";
import { decodeSign1, ES256, HEADER, verifySign1 } from "../../../src/formats/cose/index.js";
import { publicKeyFromJwk } from "../../../src/formats/crypto/public-key.js";
import { es256KeyPair } from "../../helpers/es256-key.js";
import { fixtureJson } from "../../helpers/fixtures.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import {
  atService,
  filled,
  type ScittLinkOptions,
  type ScittStorageOptions,
  shipped,
  vconServerConfig,
} from "../../helpers/vcon-server-snippet.js";
import fixture from "./vcon-scitt-link-statement.json" with { type: "json" };

// Replays what vcon-server's `scitt` link (v0.3.0, conserver/links/scitt) sends and checks what
// it checks, step by step from its code. The statement was made by the link's own
// create_hashed_signed_statement (pycose, CWT claims at label 13): see the fixture's `source`.
// The link itself, unmodified, is run against the service by the runner described in the README.
const publicLog = randomUUID();
let s: TestService;
beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SCITT_PUBLIC_LOG: publicLog }, {}, {}, { a: publicLog });
  // The one thing an operator does: trust the conserver's key (by its kid) in the public log.
  const res = await s.api("/archivist/v1/scitt/keys", {
    method: "POST",
    token: await s.token(s.a),
    json: { kid: fixture.kid, public_jwk: fixture.public_jwk },
  });
  expect(res.status).toBe(200);
});
afterAll(() => s?.stop());

const sha256 = (b: Uint8Array) => new Uint8Array(createHash("sha256").update(b).digest());
const cat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** The link's `_compute_root`: its walk of an RFC 9162 inclusion proof. */
function linkComputeRoot(leafHash: Uint8Array, leafIndex: number, treeSize: number, siblings: Uint8Array[]) {
  let current = leafHash;
  let index = leafIndex;
  let size = treeSize;
  let k = 0;
  while (size > 1) {
    if (index === size - 1 && size % 2 === 1) {
      index = Math.floor(index / 2);
      size = Math.floor((size + 1) / 2);
      continue;
    }
    const sibling = siblings[k++] as Uint8Array;
    current =
      index % 2 === 0
        ? sha256(cat(new Uint8Array([1]), current, sibling))
        : sha256(cat(new Uint8Array([1]), sibling, current));
    index = Math.floor(index / 2);
    size = Math.floor((size + 1) / 2);
  }
  return current;
}

/** The link's `_verify_cose_receipt`, on the documents at its `scrapi_url` (the service's root by default). */
async function linkVerifiesReceipt(
  receipt: Uint8Array,
  statementHash: Uint8Array,
  scrapiUrl = s.url,
): Promise<boolean> {
  const msg = decodeSign1(receipt);
  const proofs = (msg.unprotectedHeader.get(HEADER.vdp) as Map<CborValue, CborValue>).get(-1) as Uint8Array[];
  const [treeSize, leafIndex, siblings] = decodeCbor(proofs[0] as Uint8Array) as [
    number,
    number,
    Uint8Array[],
  ];
  const root = linkComputeRoot(
    sha256(cat(new Uint8Array([0]), statementHash)),
    leafIndex,
    treeSize,
    siblings,
  );
  const config = await fetch(`${scrapiUrl}/.well-known/transparency-configuration`);
  expect(config.status).toBe(200);
  const c = decodeCbor(new Uint8Array(await config.arrayBuffer())) as Map<CborValue, CborValue>;
  const jwksUri = (c.get("jwks_uri") as string | undefined) ?? `${scrapiUrl}/jwks`;
  const jwks = (await (await fetch(jwksUri)).json()) as { keys: Array<{ x: string; y: string }> };
  const jwk = jwks.keys[0] as { x: string; y: string };
  const key = publicKeyFromJwk({ kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y });
  return verifySign1(receipt, key, root);
}

describe("vcon-server's scitt link, replayed", () => {
  const statement = new Uint8Array(Buffer.from(fixture.statement_hex, "hex"));

  it("sends CWT claims at label 13, which the service reads as 15", () => {
    const st = decodeSign1(statement);
    expect(st.protectedHeader.has(15)).toBe(false);
    expect((st.protectedHeader.get(13) as Map<number, string>).get(1)).toBe("conserver");
  });

  it("registers without a token (201 with the receipt, entry id from Location) and verifies the receipt with its own algorithm", async () => {
    // register_statement: POST {scrapi_url}/entries, Content-Type application/cose, no Authorization.
    const res = await fetch(`${s.url}/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: Buffer.from(statement),
    });
    expect(res.status).toBe(201);
    const entryId = (res.headers.get("location") ?? "").split("/").at(-1) as string;
    expect(entryId).toMatch(/^events_[0-9a-f-]{36}$/);
    const receipt = new Uint8Array(await res.arrayBuffer());
    // statement_hash = SHA-256(operation_payload): the statement's payload bytes.
    const statementHash = sha256(new TextEncoder().encode(fixture.payload));
    expect(await linkVerifiesReceipt(receipt, statementHash)).toBe(true);
    expect(await linkVerifiesReceipt(receipt, sha256(new TextEncoder().encode("another payload")))).toBe(
      false,
    );
    // get_receipt (its asynchronous path): GET {scrapi_url}/entries/{entry_id}, Accept application/cose.
    const again = await fetch(`${s.url}/entries/${entryId}`, { headers: { accept: "application/cose" } });
    expect(again.status).toBe(200);
    expect(again.headers.get("content-type")).toBe("application/cose");
    expect(await linkVerifiesReceipt(new Uint8Array(await again.arrayBuffer()), statementHash)).toBe(true);
  });

  it("finds the keys at /jwks when it cannot use the configuration", async () => {
    const jwks = (await (await fetch(`${s.url}/jwks`)).json()) as { keys: Array<{ kid: string }> };
    const keySet = decodeCbor(
      new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()),
    ) as Array<Map<number, Uint8Array>>;
    expect(jwks.keys[0]?.kid).toBe(new TextDecoder().decode(keySet[0]?.get(2)));
  });
});

// The shipped config.yml's scitt link and scitt storage backend (plugins/conserver/vcon-server),
// replayed with their options against a tenancy set up as docs/vcon-server.md says: its log open
// to registration by signature and the conserver's key trusted under the snippet's key_id. Those
// clients take only a 201 (docs/standards.md: requests follows a 303 itself, and a 202 or what a
// 303 leads to ends their run with a TypeError), which the service's default wait gives.
describe("vcon-server's scitt link and storage, replayed with the shipped config.yml", () => {
  const config = vconServerConfig();
  const link = shipped<ScittLinkOptions>(config.links, "links.scitt");
  const storage = shipped<ScittStorageOptions>(config.storages, "storage.scitt");
  const key = es256KeyPair();
  let t: TestService;
  let tenant: string;
  const scrapi = (url: string) => filled(atService(url, t.url), { "tenant uuid": tenant });

  beforeAll(async () => {
    t = await startTestService();
    const token = await t.token(t.a);
    const self = (await (await t.api("/archivist/v1/tenancies/self", { token })).json()) as {
      identity: string;
    };
    tenant = self.identity.replace("tenant/", "");
    const open = await t.api("/archivist/v1/scitt/registration-policy", {
      method: "PUT",
      token,
      json: { open: true, requests_per_second: 10 },
    });
    expect(open.status, await open.clone().text()).toBe(200);
    for (const kid of new Set([link.options.key_id, storage.options.key_id])) {
      const trusted = await t.api("/archivist/v1/scitt/keys", {
        method: "POST",
        token,
        json: { kid, public_jwk: key.publicKey.jwk },
      });
      expect(trusted.status).toBe(200);
    }
  }, 60_000);
  afterAll(() => t?.stop());

  /** create_hashed_signed_statement as the link calls it: CWT claims at label 13, the payload attached. */
  function statement(
    o: { issuer: string; key_id: string },
    subject: string,
    meta: Record<string, string>,
    payload: string,
  ) {
    const jwk = key.publicKey.jwk as { x: string; y: string };
    const b64 = (v: string) => new Uint8Array(Buffer.from(v, "base64url"));
    const cnf = new Map<CborValue, CborValue>([
      [
        1,
        new Map<CborValue, CborValue>([
          [1, 2],
          [-1, 1],
          [-2, b64(jwk.x)],
          [-3, b64(jwk.y)],
        ]),
      ],
    ]);
    const protectedHeader = new Map<CborValue, CborValue>([
      [HEADER.alg, ES256],
      [HEADER.kid, new TextEncoder().encode(o.key_id)],
      [-6802, "application/vcon+json"],
      [
        13,
        new Map<CborValue, CborValue>([
          [1, o.issuer],
          [2, subject],
          [8, cnf],
        ]),
      ],
      [-6800, -16],
      [-6801, ""],
      [-6804, new Map<CborValue, CborValue>(Object.entries(meta))],
    ]);
    return signSign1({ protectedHeader, payload: new TextEncoder().encode(payload) }, key.privateKey);
  }

  /** register_statement: POST {scrapi_url}/entries; a 201 carries the receipt, its Location the entry id. */
  async function register(
    scrapiUrl: string,
    signed: Uint8Array,
  ): Promise<{ entryId: string; receipt: Uint8Array }> {
    const res = await fetch(`${scrapiUrl}/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: Buffer.from(signed),
    });
    // Anything else raises (4xx, 5xx) or returns None (a 202, or the 303's operation), failing the link.
    expect(res.status, await res.clone().text()).toBe(201);
    const entryId = (res.headers.get("location") ?? "").split("/").at(-1) as string;
    return { entryId, receipt: new Uint8Array(await res.arrayBuffer()) };
  }

  const FILE = "ietf-core03-ab_call_ext_rec.vcon.json";
  const doc = fixtureJson<{ uuid: string; parties?: Array<{ tel?: string }> }>(`vcon/${FILE}`);
  const hash = fixtureJson<{
    vectors: Record<string, { sha256_vcon_server_after_read_normalization: string }>;
  }>("vcon/hash-vectors.json").vectors[FILE]?.sha256_vcon_server_after_read_normalization as string;
  /** The link's and the storage's subjects: one statement per party with a tel, else the vCon. */
  const tels = (doc.parties ?? []).flatMap((p) => (p.tel ? [p.tel] : []));

  it("the link registers one statement per party, and its receipts verify by its own algorithm", async () => {
    const url = scrapi(link.options.scrapi_url);
    const op = link.options.vcon_operation;
    expect(tels.length).toBeGreaterThan(0);
    for (const tel of tels) {
      const payload = `${hash}:${op}:${tel}`;
      const r = await register(
        url,
        statement(link.options, `tel:${tel}`, { vcon_operation: op, party_tel: tel }, payload),
      );
      expect(r.entryId).toMatch(/^events_[0-9a-f-]{36}$/);
      expect(await linkVerifiesReceipt(r.receipt, sha256(new TextEncoder().encode(payload)), url)).toBe(true);
    }
    // Without a party's tel the subject is the vCon.
    const payload = `${hash}:${op}`;
    const r = await register(
      url,
      statement(link.options, `vcon://${doc.uuid}`, { vcon_operation: op }, payload),
    );
    expect(await linkVerifiesReceipt(r.receipt, sha256(new TextEncoder().encode(payload)), url)).toBe(true);
  });

  it("the storage backend registers one statement per operation and party, which the tenancy's log holds", async () => {
    const url = scrapi(storage.options.scrapi_url);
    const ids: string[] = [];
    for (const op of storage.options.operations)
      for (const tel of tels) {
        const payload = `${hash}:${op}:${tel}`;
        ids.push(
          (
            await register(
              url,
              statement(storage.options, `tel:${tel}`, { vcon_operation: op, party_tel: tel }, payload),
            )
          ).entryId,
        );
      }
    expect(ids.length).toBe(storage.options.operations.length * tels.length);
    // Registered in the tenancy's own log: its administrators find them by subject.
    const token = await t.token(t.a);
    const found = (await (
      await t.api(`/archivist/v1/statements?subject=${encodeURIComponent(`tel:${tels[0]}`)}`, { token })
    ).json()) as { statements: Array<{ kind: string; issuer: string }> };
    expect(found.statements.filter((f) => f.kind === "registered").map((f) => f.issuer)).toContain(
      storage.options.issuer,
    );
  });

  it("a statement signed by a key the tenancy does not trust is refused", async () => {
    const other = es256KeyPair();
    const res = await fetch(`${scrapi(link.options.scrapi_url)}/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: Buffer.from(
        signSign1(
          {
            protectedHeader: new Map<CborValue, CborValue>([
              [HEADER.alg, ES256],
              [HEADER.kid, new TextEncoder().encode("not-trusted")],
              [
                13,
                new Map<CborValue, CborValue>([
                  [1, link.options.issuer],
                  [2, "vcon://x"],
                ]),
              ],
            ]),
            payload: new TextEncoder().encode("x"),
          },
          other.privateKey,
        ),
      ),
      redirect: "manual",
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
