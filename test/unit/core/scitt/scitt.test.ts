import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signSign1 } from "../../../../src/core/log/sign1.js";
import { nodeSigner } from "../../../../src/core/node/crypto.js";
import {
  attachReceipts,
  checkRegistrationPolicy,
  eventToStatement,
  problemDetails,
  registeredEvent,
  StatementError,
  statementToEventAttributes,
} from "../../../../src/core/scitt/index.js";
import { decodeCbor, encodeCbor, Tagged } from "../../../../src/formats/cbor/index.js";
import { decodeSign1, HEADER } from "../../../../src/formats/cose/index.js";
import { assetFreeEventLeafHash, assetFreeExtraBytes } from "../../../../src/formats/record/index.js";
import { verifyStatement } from "../../../../src/verify/index.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";
import { fixtureJson } from "../../../helpers/fixtures.js";
import { pki, signedByCertificates } from "../../../helpers/pki.js";
import { deterministicSigner, vectorPublicKey } from "../../../helpers/vector-key.js";
import { hex, receiptInLog, statementOptions, vectorEvent } from "../../formats/cose/fixture.js";

interface Vectors {
  preimage: { sha256: string };
  statements: Record<string, { coseSign1AttachedHex: string; coseSign1DetachedHex: string }>;
}
const v = fixtureJson<Vectors>("vectors/signed-statement-generated.json");
/** The template-0.3.0 event the generated vectors were made from, and the statement's options. */
const event = vectorEvent;
const opts = statementOptions;

describe("statements from template-0.3.0 events", () => {
  it("match the generated vectors byte for byte (private labels and RFC 9995)", () => {
    expect(hex(eventToStatement(event, opts, deterministicSigner))).toBe(
      v.statements.datatrailsPrivateLabels?.coseSign1AttachedHex,
    );
    expect(hex(eventToStatement(event, { ...opts, detached: true }, deterministicSigner))).toBe(
      v.statements.datatrailsPrivateLabels?.coseSign1DetachedHex,
    );
    expect(hex(eventToStatement(event, { ...opts, form: "rfc9995" }, deterministicSigner))).toBe(
      v.statements.rfc9995HashEnvelope?.coseSign1AttachedHex,
    );
  });

  it("map back to the event's attributes", () => {
    const back = statementToEventAttributes(eventToStatement(event, opts, deterministicSigner));
    expect(back.issuer).toBe(opts.issuer);
    expect(back.attributes).toEqual(event);
  });

  it("refuse an event without a required template attribute", () => {
    const { subject: _s, ...noSubject } = event;
    expect(() => eventToStatement(noSubject, opts, deterministicSigner)).toThrow(StatementError);
    expect(() => eventToStatement({ ...event, payload: "zz" }, opts, deterministicSigner)).toThrow(/payload/);
  });

  it("name every missing attribute at once, and read null as missing", () => {
    const { subject: _s, vcon_draft_version: _v, ...lacking } = event;
    expect(() =>
      eventToStatement({ ...lacking, timestamp_declared: null }, opts, deterministicSigner),
    ).toThrow("subject, timestamp_declared, vcon_draft_version are required");
  });

  it("are made of vcon-server's datatrails link events: no scitt_draft_version, an arc_event_type, nulls left out", () => {
    const { scitt_draft_version: _d, ...linkEvent } = event;
    const sent = {
      ...linkEvent,
      arc_event_type: "vcon_create",
      conserver_link: "DataTrails",
      payload_location: null,
    };
    const back = statementToEventAttributes(eventToStatement(sent, opts, deterministicSigner));
    const { payload_location: _l, ...expected } = sent;
    expect(back.attributes).toEqual(expected);
  });

  it("name every missing template attribute in one error, in template order", () => {
    const { subject: _s, vcon_operation: _o, payload: _p, ...three } = event;
    let caught: unknown;
    try {
      eventToStatement({ ...three, scitt_draft_version: "" }, opts, deterministicSigner);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StatementError);
    // scitt_draft_version is not required (vcon-server's link never sends it).
    expect((caught as StatementError).missing).toEqual(["payload", "subject", "vcon_operation"]);
    expect((caught as Error).message).toMatch(/^payload, subject, vcon_operation are required/);
  });
});

describe("registration policy", () => {
  const statement = eventToStatement(event, opts, deterministicSigner);
  it("accepts a trusted kid and refuses an unknown one or a tampered statement", () => {
    expect(
      checkRegistrationPolicy(statement, {
        keys: new Map([["test-key-1", vectorPublicKey]]),
        caCertificatesPem: [],
      }),
    ).toMatchObject({ ok: true, trustedBy: "key" });
    expect(checkRegistrationPolicy(statement, { keys: new Map(), caCertificatesPem: [] }).ok).toBe(false);
    const tampered = new Uint8Array(statement);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    expect(
      checkRegistrationPolicy(tampered, {
        keys: new Map([["test-key-1", vectorPublicKey]]),
        caCertificatesPem: [],
      }).ok,
    ).toBe(false);
  });

  it("accepts an x5chain ending at a tenancy CA and refuses it without that CA", () => {
    const ca = readFileSync(new URL("../../../../fixtures/pki/ca.pem", import.meta.url), "utf8");
    const leaf = new X509Certificate(
      readFileSync(new URL("../../../../fixtures/pki/issuer.pem", import.meta.url)),
    );
    const key = createPrivateKey(
      readFileSync(new URL("../../../../fixtures/pki/issuer.pk8.pem", import.meta.url)),
    );
    const s = decodeSign1(statement);
    const h = new Map(s.protectedHeader);
    h.set(HEADER.x5chain, new Uint8Array(leaf.raw));
    const signed = signSign1({ protectedHeader: h, payload: s.payload as Uint8Array }, nodeSigner(key));
    expect(checkRegistrationPolicy(signed, { keys: new Map(), caCertificatesPem: [ca] })).toMatchObject({
      ok: true,
      trustedBy: "x5chain",
    });
    expect(checkRegistrationPolicy(signed, { keys: new Map(), caCertificatesPem: [] }).ok).toBe(false);
  });

  it("accepts a chain through an intermediate CA, and refuses one through an end-entity certificate", () => {
    const ca = pki("ca.pem");
    const signedWith = (keyFile: string, certs: string[], issuer: string) =>
      signedByCertificates(statement, keyFile, certs, issuer);
    const trust = { keys: new Map(), caCertificatesPem: [ca] };
    const viaIntermediate = signedWith(
      "via-intermediate.pk8.pem",
      ["via-intermediate.pem", "intermediate.pem"],
      "https://vendor.example",
    );
    expect(checkRegistrationPolicy(viaIntermediate, trust)).toMatchObject({ ok: true, trustedBy: "x5chain" });
    // end-entity.pem is CA:FALSE (and has no key usage that would stop it): its key signed
    // forged.pem, which must not borrow the CA's trust.
    const forged = signedWith("forged.pk8.pem", ["forged.pem", "end-entity.pem"], "impostor.example");
    expect(checkRegistrationPolicy(forged, trust)).toEqual({
      ok: false,
      reason: "x5chain does not end at a TLS CA certificate of this tenancy",
    });
    // A trusted "CA" that is not one (an end-entity certificate uploaded as trust) anchors nothing.
    const forgedAnchor = signedWith("forged.pk8.pem", ["forged.pem"], "impostor.example");
    expect(
      checkRegistrationPolicy(forgedAnchor, { keys: new Map(), caCertificatesPem: [pki("end-entity.pem")] })
        .ok,
    ).toBe(false);
    // limited.pem is CA:TRUE with pathlen 0: it may issue end-entity certificates only, so the
    // CA it issued (sub-ca.pem) must not extend the trust (openssl verify: "path length
    // constraint exceeded"). Both certificates are CAs, so only the limit refuses this chain.
    const tooDeep = signedWith(
      "via-sub-ca.pk8.pem",
      ["via-sub-ca.pem", "sub-ca.pem", "limited.pem"],
      "too-deep.example",
    );
    expect(checkRegistrationPolicy(tooDeep, trust).ok).toBe(false);
    // The same sub-CA trusted directly: its own chain is one step, within every limit.
    expect(
      checkRegistrationPolicy(signedWith("via-sub-ca.pk8.pem", ["via-sub-ca.pem"], "too-deep.example"), {
        keys: new Map(),
        caCertificatesPem: [pki("sub-ca.pem")],
      }).ok,
    ).toBe(true);
  });

  describe("binds the CWT issuer to the x5chain leaf", () => {
    const trust = { keys: new Map(), caCertificatesPem: [pki("ca.pem")] };
    const check = (keyFile: string, certs: string[], issuer: string) =>
      checkRegistrationPolicy(signedByCertificates(statement, keyFile, certs, issuer), trust);
    // Known answers from openssl and basenc (fixtures/pki/README.md).
    const CA_SHA256 = "wagu214icvQaQ9BukzBXnMcDAmcn-LtVQk85NaoyJIA";
    const CA_SHA384 = "e_oLVqayI9xe3Wl0Xo8HH_cyY00zYWIHAWhFBGl4QTZKqZ1PeacBGGxkkMFdUCe0";
    const INTERMEDIATE_SHA256 = "hpDCRNnqsWpFFxVw1uNj8GyhrYfCA26mB1nZUE0Qs6I";
    const ISSUER_LEAF_SHA256 = "bEbcx6YlQy8qlPJGgMDiWtvPdPLPx3Cwz7-hZXG7VHw";
    const named = (iss: string) => check("named.pk8.pem", ["named.pem"], iss);

    it("accepts an issuer the leaf names, and refuses any other", () => {
      expect(named("https://vendor.example").ok).toBe(true);
      expect(named("https://VENDOR.example/some/path").ok).toBe(true);
      expect(named("vendor.example").ok).toBe(true);
      expect(named("bob@example.com").ok).toBe(true);
      expect(named("https://vendor.example/issuer").ok).toBe(true);
      // A holder of a certificate under the tenancy's CA must not speak for another issuer.
      const other = named("https://conserver.example");
      expect(other).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/not named by the x5chain leaf/),
      });
      // With alternative names present, the common name is not a name the leaf vouches for.
      expect(named("Bob Example").ok).toBe(false);
      expect(named("https://user@vendor.example").ok).toBe(false);
      // Without alternative names, the common name stands for the DNS name.
      expect(check("issuer.pk8.pem", ["issuer.pem"], "https://conserver.example").ok).toBe(true);
      expect(check("issuer.pk8.pem", ["issuer.pem"], "https://vendor.example").ok).toBe(false);
    });

    it("resolves a did:x509 issuer against the chain", () => {
      const did = (rest: string, fp = CA_SHA256, alg = "sha256") => `did:x509:0:${alg}:${fp}::${rest}`;
      expect(named(did("subject:CN:Bob%20Example")).ok).toBe(true);
      expect(named(did("subject:C:US:O:Example%20Org:CN:Bob%20Example")).ok).toBe(true);
      expect(named(did("subject:O:Example%20Org", CA_SHA384, "sha384")).ok).toBe(true);
      expect(named(did("subject:2.5.4.10:Example%20Org")).ok).toBe(true);
      expect(named(did("san:email:bob%40example.com")).ok).toBe(true);
      expect(named(did("san:uri:https%3A%2F%2Fvendor.example%2Fissuer")).ok).toBe(true);
      expect(named(did("eku:1.3.6.1.5.5.7.3.3::san:dns:vendor.example")).ok).toBe(true);
      // Every predicate must hold, the fingerprint must be a CA's in the path, not the leaf's.
      expect(named(did("subject:CN:Alice%20Example"))).toMatchObject({
        ok: false,
        reason: "the leaf certificate does not match the did:x509 subject predicate",
      });
      expect(named(did("san:email:alice%40example.com")).ok).toBe(false);
      expect(named(did("eku:1.3.6.1.5.5.7.3.1")).ok).toBe(false);
      expect(named(did("eku:1.3.6.1.5.5.7.3.3::subject:CN:Alice")).ok).toBe(false);
      expect(named(did("subject:CN:Bob%20Example", INTERMEDIATE_SHA256))).toMatchObject({
        ok: false,
        reason: "no CA certificate in the path has the did:x509 fingerprint",
      });
      expect(
        check("issuer.pk8.pem", ["issuer.pem"], did("subject:CN:conserver.example", ISSUER_LEAF_SHA256)).ok,
      ).toBe(false);
      expect(check("issuer.pk8.pem", ["issuer.pem"], did("subject:CN:conserver.example")).ok).toBe(true);
      // Pinned to the intermediate, the chain through it resolves; pinned to the root, too.
      const viaIntermediate = (fp: string) =>
        check(
          "via-intermediate.pk8.pem",
          ["via-intermediate.pem", "intermediate.pem"],
          did("subject:CN:vendor.example", fp),
        ).ok;
      expect(viaIntermediate(INTERMEDIATE_SHA256)).toBe(true);
      expect(viaIntermediate(CA_SHA256)).toBe(true);
      expect(named(did("fulcio-issuer:accounts.google.com"))).toMatchObject({
        ok: false,
        reason: "did:x509 issuer: the fulcio-issuer predicate is not supported",
      });
    });

    it("refuses a leaf that may not sign and a chain with a critical extension it does not understand", () => {
      expect(check("no-sign.pk8.pem", ["no-sign.pem"], "no-sign.example")).toMatchObject({
        ok: false,
        reason: "the x5chain leaf certificate's keyUsage does not allow digitalSignature",
      });
      expect(check("unknown-critical.pk8.pem", ["unknown-critical.pem"], "unknown-critical.example")).toEqual(
        {
          ok: false,
          reason: "x5chain carries an unsupported critical extension 1.3.6.1.4.1.55555.1",
        },
      );
    });
  });

  it("writes RFC 9290 problem details", () => {
    expect(decodeCbor(problemDetails({ title: "t", detail: "d", status: 400 }))).toEqual(
      new Map<number, unknown>([
        [-1, "t"],
        [-2, "d"],
        [-4, 400],
      ]),
    );
  });
});

describe("transparent statements", () => {
  it("verify with only public keys, and fail when the statement or receipt changes", () => {
    const statement = eventToStatement(event, opts, deterministicSigner);
    const service = es256KeyPair();
    const tenant = "6a009b40-eb55-4159-81f0-69024f89f53c";
    const idts = 0x8fa97ef269039b00n;
    const e = registeredEvent(statement);
    const leaf = assetFreeEventLeafHash(e, idts, assetFreeExtraBytes(tenant));
    const { receipt } = receiptInLog([new Uint8Array(32), leaf, new Uint8Array(32).fill(9)], 1, {
      tenant,
      idtimestamp: idts,
      issuer: "https://a.example",
      signer: service.privateKey,
    });
    const transparent = attachReceipts(statement, [receipt]);
    const keys = {
      issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
      serviceKeys: new Map([["svc", service.publicKey]]),
    };
    const verdict = verifyStatement(transparent, keys);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true, receipts: 1 });
    const other = eventToStatement(
      { ...event, vcon_operation: "vcon_delete", arc_display_type: "vcon_delete" },
      opts,
      deterministicSigner,
    );
    expect(verifyStatement(attachReceipts(other, [receipt]), keys).ok).toBe(false);
    const badReceipt = new Uint8Array(receipt);
    badReceipt[badReceipt.length - 3] = (badReceipt[badReceipt.length - 3] as number) ^ 1;
    expect(verifyStatement(attachReceipts(statement, [badReceipt]), keys).ok).toBe(false);
    expect(verifyStatement(new Uint8Array(encodeCbor(new Tagged(18, []))), keys).ok).toBe(false);
  });
});
