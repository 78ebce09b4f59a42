import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CborValue, decodeCbor } from "../../../src/core/cbor/index.js";
import { decodeSign1, HEADER, verifySign1 } from "../../../src/core/cose/index.js";
import { publicKeyFromJwk } from "../../../src/core/crypto/public-key.js";
import { startTestService, type TestService } from "../../helpers/service.js";
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

/** The link's `_verify_cose_receipt`, on the service's own documents. */
async function linkVerifiesReceipt(receipt: Uint8Array, statementHash: Uint8Array): Promise<boolean> {
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
  const config = await s.api("/.well-known/transparency-configuration");
  expect(config.status).toBe(200);
  const c = decodeCbor(new Uint8Array(await config.arrayBuffer())) as Map<CborValue, CborValue>;
  const jwksUri = (c.get("jwks_uri") as string | undefined) ?? `${s.url}/jwks`;
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
