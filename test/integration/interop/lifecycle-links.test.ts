import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signSign1 } from "../../../src/core/log/sign1.js";
import { type CborValue, decodeCbor } from "../../../src/formats/cbor/index.js";
import { decodeSign1, HEADER, verifySign1 } from "../../../src/formats/cose/index.js";
import { publicKeyFromJwk } from "../../../src/formats/crypto/public-key.js";
import { recordLifecycle } from "../../../src/formats/lifecycle/vocabulary.js";
import type { ConsentAnswer } from "../../../src/lookup/evidence/consent-build.js";
import { parseBundle, verifyBundle } from "../../../src/verify/bundle/index.js";
import { bundleConsentReport, keysFromKeySet } from "../../../src/verify/index.js";
import { consentReport } from "../../../src/verify/lifecycle/report.js";
import { emptyPolicy } from "../../../src/verify/verdict/policy.js";
import { es256KeyPair } from "../../helpers/es256-key.js";
import { committedRecord, until } from "../../helpers/poll.js";
import { startTestService, type TestService } from "../../helpers/service.js";

// vcon-server's real links, configured with lifecycle operation names, replayed request for
// request as in datatrails-link.test.ts and vcon-scitt-link.test.ts (read from their code, link
// version 0.3.0): the `datatrails` link takes its operation from its config (`vcon_operation`),
// normalised as `"vcon_" + op.lower().removeprefix("vcon_").removeprefix("vcon-")`, so a purpose
// rides after a dot; the `scitt` link puts it in its statement's meta-map. Neither is changed:
// the service records what they send, and the lifecycle vocabulary reads it.
const publicLog = randomUUID();
let s: TestService;
let token: string;
beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SCITT_PUBLIC_LOG: publicLog }, {}, {}, { a: publicLog });
  token = await s.token(s.a);
});
afterAll(() => s?.stop());

type Rec = Record<string, unknown> & { identity: string; confirmation_status?: string };

/** The datatrails link's operation name for a configured `vcon_operation`. */
const linkOperation = (op: string) =>
  `vcon_${op
    .toLowerCase()
    .replace(/^vcon_/, "")
    .replace(/^vcon-/, "")}`;

async function linkToken(): Promise<string> {
  const res = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: s.a.clientId,
      client_secret: s.a.clientSecret,
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(method: string, path: string, tok: string, json?: unknown): Promise<Rec> {
  const res = await fetch(`${s.url}/archivist${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${tok}`,
      "DataTrails-User-Agent": "oss/conserverlink/0.3.0",
      "DataTrails-Partner-ID": "interop-test",
      "Content-Type": "application/json",
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(400);
  return (await res.json()) as Rec;
}

/** One `run()` of the datatrails link with `vcon_operation` configured: the day's droid asset, an asset event, a v1 event. */
async function datatrailsLink(
  vcon: string,
  payload: string,
  configured: string,
): Promise<{ assetEvent: Rec; event: Rec }> {
  const tok = await linkToken();
  const assetAttributes = {
    arc_display_type: "vcon_droid",
    conserver_link_version: "0.3.0",
    droid_id: new Date().toISOString().slice(0, 10),
  };
  const q = new URLSearchParams(Object.entries(assetAttributes).map(([k, v]) => [`attributes.${k}`, v]));
  const found = (await call("GET", `/v2/assets?${q}`, tok)) as unknown as { assets: Rec[] };
  const assetId =
    found.assets[0]?.identity ??
    (
      await call("POST", "/v2/assets", tok, {
        behaviours: ["RecordEvidence"],
        attributes: assetAttributes,
        public: false,
      })
    ).identity;
  const op = linkOperation(configured);
  const subject = `vcon://${vcon}`;
  const attributes = {
    arc_display_type: op,
    arc_event_type: op,
    conserver_link: "DataTrails",
    conserver_link_name: "datatrails_lifecycle",
    conserver_link_version: "0.3.0",
    payload,
    payload_hash_alg: "SHA-256",
    payload_preimage_content_type: "application/vcon+json",
    subject,
    timestamp_declared: "2026-03-01T10:00:00Z",
    vcon_draft_version: "01",
    vcon_operation: op,
  };
  const assetEvent = await call("POST", `/v2/${assetId}/events`, tok, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: attributes,
  });
  const event = await call("POST", "/v1/events", tok, { attributes, trails: [subject] });
  return { assetEvent, event };
}

describe("vcon-server's real links with lifecycle operation names", () => {
  it("the datatrails link records consent per purpose and an inference; the service derives the consent and flags the inference", async () => {
    const vcon = randomUUID();
    const payload = "5f".repeat(32);
    const made: Array<{ assetEvent: Rec; event: Rec }> = [];
    for (const op of [
      "consent_accepted.ai_training",
      "VCON_consent_revoked.ai_training",
      "vcon-inference_performed.ai_training",
    ])
      made.push(await datatrailsLink(vcon, payload, op));
    // Recorded as sent: the operation, purpose and all, in the link's three attributes.
    const names = [
      "vcon_consent_accepted.ai_training",
      "vcon_consent_revoked.ai_training",
      "vcon_inference_performed.ai_training",
    ];
    for (const [i, m] of made.entries()) {
      const rec = await committedRecord<Rec>(s, token, `/archivist/v2/${m.assetEvent.identity}`);
      const attrs = rec.event_attributes as Record<string, unknown>;
      expect([attrs.vcon_operation, attrs.arc_event_type, attrs.arc_display_type]).toEqual([
        names[i],
        names[i],
        names[i],
      ]);
      const free = await committedRecord<Rec>(s, token, `/archivist/v1/${m.event.identity}`);
      expect((free.attributes as Record<string, unknown>).vcon_operation).toBe(names[i]);
      // The vocabulary reads both kinds alike: a known operation, for its purpose.
      for (const r of [rec, free])
        expect(recordLifecycle(r)).toMatchObject({ meaning: { known: true }, purposes: ["ai_training"] });
    }
    const consent = (await (
      await s.api(`/archivist/v1/consent/vcons/${vcon}?purpose=ai_training`, { token })
    ).json()) as ConsentAnswer;
    expect(consent.consents).toEqual([
      {
        purpose: "ai_training",
        state: "revoked",
        decided_by: made[1]?.assetEvent.identity,
        records: [
          { identity: made[0]?.assetEvent.identity, role: "grant" },
          { identity: made[1]?.assetEvent.identity, role: "revocation" },
        ],
      },
    ]);
    // The vCon's index covers its six records (three asset events, their asset-free twins) before its
    // bundle is made: a bundle made before carries no lookup and only the asset events.
    await until(async () => {
      const r = await s.api(`/archivist/v1/vindex/lookup?key=vcon://${vcon}`, { token });
      return r.status === 200 && ((await r.json()) as { indices: number[] }).indices.length === 6
        ? true
        : undefined;
    });
    // The vCon's bundle (its asset events on the droid asset), verified, makes the report.
    const keys = keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    const bundle = parseBundle(await (await s.api(`/archivist/v1/evidence/vcons/${vcon}`, { token })).text());
    const verdict = verifyBundle(bundle, { policy: emptyPolicy(), serviceKeys: keys, described: ["keys"] });
    expect(verdict.code, verdict.problems.join("; ")).toBe("verified");
    const report = bundleConsentReport(bundle, verdict);
    // The bundle holds the asset-free twins the link also writes (the index files them under the
    // vCon, so a complete bundle has them): the processing shows in both, each after the revocation
    // (the asset event or its twin, whichever the log holds last before it).
    const revokedBy = [made[1]?.assetEvent.identity, made[1]?.event.identity].map(
      (id) => `processing for ai_training after consent was revoked (${id})`,
    );
    expect(report.violations.map((v) => v.identity).sort()).toEqual(
      [made[2]?.assetEvent.identity, made[2]?.event.identity].sort(),
    );
    for (const v of report.violations) {
      expect(v).toMatchObject({ operation: "vcon_inference_performed.ai_training", purpose: "ai_training" });
      expect(revokedBy).toContain(v.reason);
    }
    expect(report.violations).toHaveLength(2);
  });

  it("the scitt link registers lifecycle operations; each registered statement's record names it, read by the vocabulary", async () => {
    // The conserver's key, trusted in the public log by its kid (the operator's one step).
    const key = es256KeyPair();
    const jwk = key.objects.publicKey.export({ format: "jwk" }) as { x: string; y: string };
    const kid = "conserver-key-1";
    const trusted = await s.api("/archivist/v1/scitt/keys", {
      method: "POST",
      token,
      json: { kid, public_jwk: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y } },
    });
    expect(trusted.status).toBe(200);
    const vcon = randomUUID();
    const hash = "5f".repeat(32);
    const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64url"));
    for (const operation of ["vcon_consent_revoked.ai_training", "vcon_breach_detected"]) {
      // create_hashed_signed_statement as links.scitt.run calls it for a vCon whose parties have no tel.
      const operationPayload = `${hash}:${operation}`;
      const statement = signSign1(
        {
          protectedHeader: new Map<CborValue, CborValue>([
            [1, -7],
            [4, new TextEncoder().encode(kid)],
            [-6802, "application/vcon+json"],
            [
              13,
              new Map<CborValue, CborValue>([
                [1, "conserver"],
                [2, `vcon://${vcon}`],
                [
                  8,
                  new Map<CborValue, CborValue>([
                    [
                      1,
                      new Map<CborValue, CborValue>([
                        [1, 2],
                        [-1, 1],
                        [-2, b64(jwk.x)],
                        [-3, b64(jwk.y)],
                      ]),
                    ],
                  ]),
                ],
              ]),
            ],
            [-6800, -16],
            [-6801, ""],
            [-6804, new Map<CborValue, CborValue>([["vcon_operation", operation]])],
          ]),
          payload: new TextEncoder().encode(operationPayload),
        },
        key.privateKey,
      );
      // register_statement: POST {scrapi_url}/entries, application/cose, no token.
      const res = await fetch(`${s.url}/entries`, {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: Buffer.from(statement),
      });
      expect(res.status).toBe(201);
      const receipt = new Uint8Array(await res.arrayBuffer());
      // _verify_cose_receipt: the RFC 9162 path from SHA-256(0x00 ‖ SHA-256(operation payload)) to a root the service signed.
      const msg = decodeSign1(receipt);
      const proofs = (msg.unprotectedHeader.get(HEADER.vdp) as Map<CborValue, CborValue>).get(
        -1,
      ) as Uint8Array[];
      const [size, index, siblings] = decodeCbor(proofs[0] as Uint8Array) as [number, number, Uint8Array[]];
      const h = (...p: Uint8Array[]) =>
        new Uint8Array(createHash("sha256").update(Buffer.concat(p)).digest());
      let node = h(Uint8Array.of(0), h(new TextEncoder().encode(operationPayload)));
      let [i, n, k] = [index, size, 0];
      while (n > 1) {
        if (i === n - 1 && n % 2 === 1) {
          i = Math.floor(i / 2);
          n = Math.floor((n + 1) / 2);
          continue;
        }
        const sib = siblings[k++] as Uint8Array;
        node = i % 2 === 0 ? h(Uint8Array.of(1), node, sib) : h(Uint8Array.of(1), sib, node);
        i = Math.floor(i / 2);
        n = Math.floor((n + 1) / 2);
      }
      const jwks = (await (await fetch(`${s.url}/jwks`)).json()) as { keys: Array<{ x: string; y: string }> };
      const first = jwks.keys[0] as { x: string; y: string };
      expect(
        verifySign1(receipt, publicKeyFromJwk({ kty: "EC", crv: "P-256", x: first.x, y: first.y }), node),
      ).toBe(true);
      // The registered statement's record: the operation as the link sent it, read by the vocabulary.
      const entry = (res.headers.get("location") ?? "").split("/").at(-1) as string;
      const identity = `events/${entry.replace(/^events_/, "")}`;
      const rec = await until(async () => {
        const r = await s.api(`/archivist/v1/${identity}`, { token });
        return r.status === 200 ? ((await r.json()) as Rec) : undefined;
      });
      expect((rec.attributes as Record<string, unknown>).vcon_operation).toBe(operation);
      const l = recordLifecycle(rec);
      expect(l.meaning.known).toBe(true);
      expect(consentReport(`vcon://${vcon}`, [rec]).timeline[0]?.label).toMatch(
        operation === "vcon_breach_detected"
          ? /^breach detected \(breach response\)$/
          : /^consent revoked for ai_training/,
      );
    }
  });
});
