import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
let plain: string;
beforeAll(async () => {
  s = await startTestService({}, { tlscacertificates: 1 });
  // An application without roles: authenticated, but no administrator.
  plain = (await plainApplication(s, await s.token(s.a))).token;
});
afterAll(() => s?.stop());

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
const message = async (res: Response) => ((await res.json()) as { message: string }).message;

const SUBJECTS = "/archivist/iam/v1/subjects";
const SELF = "00000000-0000-0000-0000-000000000000";
type Subject = {
  identity: string;
  display_name: string;
  wallet_pub_key: string[];
  wallet_address: string[];
  tessera_pub_key: string[];
  tenant: string;
  confirmation_status: string;
};

const walletKey = () =>
  Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false)).toString("hex");
const tesseraKey = () => randomBytes(32).toString("base64");
const addressOf = (hex: string) =>
  `0x${Buffer.from(keccak_256(Buffer.from(hex, "hex").subarray(1)).subarray(12)).toString("hex")}`;

describe("subjects", () => {
  it("serves Self as one CONFIRMED subject with the tenancy's keys; it cannot be updated or deleted", async () => {
    const token = await s.token(s.a);
    const res = await s.api(`${SUBJECTS}/${SELF}`, { token });
    expect(res.status).toBe(200);
    const self = await json<Subject>(res);
    expect(Array.isArray(self)).toBe(false);
    expect(self.identity).toBe(`subjects/${SELF}`);
    expect(self.display_name).not.toBe("");
    expect(self.wallet_pub_key[0]).toMatch(/^04[0-9a-f]{128}$/);
    expect(self.wallet_address).toEqual([addressOf(self.wallet_pub_key[0] ?? "")]);
    expect(Buffer.from(self.tessera_pub_key[0] ?? "", "base64")).toHaveLength(32);
    expect(self.tenant).toMatch(/^tenant\/[0-9a-f-]{36}$/);
    expect(self.confirmation_status).toBe("CONFIRMED");
    const patch = await s.api(`${SUBJECTS}/${SELF}`, { method: "PATCH", token, json: { display_name: "x" } });
    expect(patch.status).toBe(403);
    expect((await s.api(`${SUBJECTS}/${SELF}`, { method: "DELETE", token })).status).toBe(403);
  });

  it("creates echoing the keys, derives wallet addresses and is CONFIRMED; PATCH replaces, DELETE answers {}", async () => {
    const token = await s.token(s.a);
    const wallet = [walletKey(), walletKey()];
    const tessera = [tesseraKey()];
    const res = await s.api(SUBJECTS, {
      method: "POST",
      token,
      json: { display_name: "Partner", wallet_pub_key: wallet, tessera_pub_key: tessera },
    });
    expect(res.status).toBe(200);
    const created = await json<Subject>(res);
    expect(created).toMatchObject({
      display_name: "Partner",
      wallet_pub_key: wallet,
      tessera_pub_key: tessera,
      wallet_address: wallet.map(addressOf),
      confirmation_status: "CONFIRMED",
    });
    expect(created.identity).toMatch(/^subjects\/[0-9a-f-]{36}$/);
    const id = created.identity.slice("subjects/".length);
    expect(await json<Subject>(await s.api(`${SUBJECTS}/${id}`, { token }))).toEqual(created);

    const newKey = walletKey();
    const patched = await json<Subject>(
      await s.api(`${SUBJECTS}/${id}`, { method: "PATCH", token, json: { wallet_pub_key: [newKey] } }),
    );
    expect(patched).toMatchObject({
      display_name: "Partner",
      wallet_pub_key: [newKey],
      wallet_address: [addressOf(newKey)],
      tessera_pub_key: tessera,
    });
    const bad = await s.api(`${SUBJECTS}/${id}`, {
      method: "PATCH",
      token,
      json: { tessera_pub_key: ["abc"] },
    });
    expect(bad.status).toBe(400);
    expect(await message(bad)).toContain("tessera_pub_key[0]");

    const del = await s.api(`${SUBJECTS}/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({});
    expect((await s.api(`${SUBJECTS}/${id}`, { token })).status).toBe(404);
    expect((await s.api(`${SUBJECTS}/${id}`, { method: "DELETE", token })).status).toBe(404);
    expect(
      (await s.api(`${SUBJECTS}/${id}`, { method: "PATCH", token, json: { display_name: "y" } })).status,
    ).toBe(404);
  });

  it("refuses bad keys with 400 naming the key", async () => {
    const token = await s.token(s.a);
    const cases: Array<[unknown, string]> = [
      [{ wallet_pub_key: ["zz"] }, "wallet_pub_key[0]"],
      [{ wallet_pub_key: [walletKey(), `04${"11".repeat(64)}`] }, "wallet_pub_key[1]"],
      [{ wallet_pub_key: [walletKey().slice(0, 66)] }, "wallet_pub_key[0]"],
      [{ tessera_pub_key: [randomBytes(16).toString("base64")] }, "tessera_pub_key[0]"],
      [{ wallet_pub_key: "04ab" }, "wallet_pub_key"],
    ];
    for (const [extra, field] of cases) {
      const res = await s.api(SUBJECTS, {
        method: "POST",
        token,
        json: { display_name: "bad", ...(extra as object) },
      });
      expect(res.status).toBe(400);
      expect(await message(res)).toContain(field);
    }
    const offCurve = await s.api(SUBJECTS, {
      method: "POST",
      token,
      json: { display_name: "bad", wallet_pub_key: [`04${"11".repeat(64)}`] },
    });
    expect(await message(offCurve)).toContain("curve");
    const noName = await s.api(SUBJECTS, { method: "POST", token, json: { wallet_pub_key: [walletKey()] } });
    expect(noName.status).toBe(400);
    expect(await message(noName)).toContain("display_name");
  });

  it("exports Self as a subject string that another tenancy imports, recording that tenancy", async () => {
    const tb = await s.token(s.b);
    const selfB = await json<Subject>(await s.api(`${SUBJECTS}/${SELF}`, { token: tb }));
    const exported = await s.api(`${SUBJECTS}/${SELF}:export`, { token: tb });
    expect(exported.status).toBe(200);
    const { subject_string } = await json<{ subject_string: string }>(exported);
    // The string is base64 of the subject's JSON, as the public SDK's create_from_b64 decodes it.
    const decoded = JSON.parse(Buffer.from(subject_string, "base64").toString("utf8")) as Subject;
    expect(decoded.wallet_pub_key).toEqual(selfB.wallet_pub_key);
    expect(decoded.tessera_pub_key).toEqual(selfB.tessera_pub_key);

    const ta = await s.token(s.a);
    const imported = await s.api(`${SUBJECTS}:import`, {
      method: "POST",
      token: ta,
      json: { display_name: "Org B (partner)", subject_string },
    });
    expect(imported.status).toBe(200);
    const sub = await json<Subject>(imported);
    expect(sub).toMatchObject({
      display_name: "Org B (partner)",
      wallet_pub_key: selfB.wallet_pub_key,
      wallet_address: selfB.wallet_address,
      tessera_pub_key: selfB.tessera_pub_key,
      tenant: selfB.tenant,
      confirmation_status: "CONFIRMED",
    });
    expect(sub.identity).not.toBe(`subjects/${SELF}`);
    const named = await json<Subject>(
      await s.api(`${SUBJECTS}:import`, { method: "POST", token: ta, json: { subject_string } }),
    );
    expect(named.display_name).toBe(selfB.display_name);

    const garbage = await s.api(`${SUBJECTS}:import`, {
      method: "POST",
      token: ta,
      json: { subject_string: "%%%" },
    });
    expect(garbage.status).toBe(400);
    expect(await message(garbage)).toContain("subject_string");
    const badKey = Buffer.from(JSON.stringify({ display_name: "x", wallet_pub_key: ["04ab"] })).toString(
      "base64",
    );
    const badImport = await s.api(`${SUBJECTS}:import`, {
      method: "POST",
      token: ta,
      json: { subject_string: badKey },
    });
    expect(badImport.status).toBe(400);
    expect(await message(badImport)).toContain("wallet_pub_key[0]");
    expect((await s.api(`${SUBJECTS}:import`, { method: "POST", token: ta, json: {} })).status).toBe(400);
  });

  it("lists Self and the others, filters by display_name and wallet_address, pages", async () => {
    const token = await s.token(s.a);
    const key = walletKey();
    await s.api(SUBJECTS, { method: "POST", token, json: { display_name: "Listed", wallet_pub_key: [key] } });
    const all = await json<{ subjects: Subject[]; next_page_token: string }>(
      await s.api(SUBJECTS, { token }),
    );
    expect(all.subjects.map((x) => x.identity)).toContain(`subjects/${SELF}`);
    expect(all.subjects.every((x) => x.display_name !== "")).toBe(true);
    const byName = await json<{ subjects: Subject[] }>(
      await s.api(`${SUBJECTS}?display_name=Listed`, { token }),
    );
    expect(byName.subjects.map((x) => x.display_name)).toEqual(["Listed"]);
    const byAddress = await json<{ subjects: Subject[] }>(
      await s.api(`${SUBJECTS}?wallet_address=${addressOf(key).toUpperCase().replace("0X", "0x")}`, {
        token,
      }),
    );
    expect(byAddress.subjects.map((x) => x.display_name)).toEqual(["Listed"]);
    const page1 = await json<{ subjects: Subject[]; next_page_token: string }>(
      await s.api(`${SUBJECTS}?page_size=1`, { token }),
    );
    expect(page1.subjects).toHaveLength(1);
    const page2 = await json<{ subjects: Subject[] }>(
      await s.api(`${SUBJECTS}?page_token=${encodeURIComponent(page1.next_page_token)}`, { token }),
    );
    expect(page2.subjects[0]?.identity).not.toBe(page1.subjects[0]?.identity);
    expect((await s.api(`${SUBJECTS}?confirmation_status=MAYBE`, { token })).status).toBe(400);
  });

  it("needs administrator rights (403), a token (401), and hides other tenancies' subjects (404)", async () => {
    const ta = await s.token(s.a);
    const created = await json<Subject>(
      await s.api(SUBJECTS, { method: "POST", token: ta, json: { display_name: "Hidden" } }),
    );
    const id = created.identity.slice("subjects/".length);
    const calls: Array<[string, string, unknown?]> = [
      ["GET", SUBJECTS],
      ["POST", SUBJECTS, { display_name: "x" }],
      ["GET", `${SUBJECTS}/${id}`],
      ["PATCH", `${SUBJECTS}/${id}`, { display_name: "x" }],
      ["DELETE", `${SUBJECTS}/${id}`],
      ["POST", `${SUBJECTS}:import`, { subject_string: "e30=" }],
      ["GET", `${SUBJECTS}/${SELF}:export`],
    ];
    for (const [method, path, body] of calls) {
      expect((await s.api(path, { method, token: plain, json: body })).status, `${method} ${path}`).toBe(403);
      expect((await s.api(path, { method, json: body })).status, `${method} ${path}`).toBe(401);
    }
    const tb = await s.token(s.b);
    expect((await s.api(`${SUBJECTS}/${id}`, { token: tb })).status).toBe(404);
    expect(
      (await s.api(`${SUBJECTS}/${id}`, { method: "PATCH", token: tb, json: { display_name: "x" } })).status,
    ).toBe(404);
    expect((await s.api(`${SUBJECTS}/${id}`, { method: "DELETE", token: tb })).status).toBe(404);
    expect((await s.api(`${SUBJECTS}/not-a-uuid`, { token: ta })).status).toBe(404);
  });
});

// A self-signed CA valid until 2126, a leaf (CA:FALSE) and a CA that expired in 2001.
const CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBhTCCASugAwIBAgIUPsNVdmtEnAEMnFC3QP3+8Lt39iEwCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMVGVzdCBSb290IENBMCAXDTI2MTEyMjA5MzUwM1oYDzIxMjYx
MDI5MDkzNTAzWjAXMRUwEwYDVQQDDAxUZXN0IFJvb3QgQ0EwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAAThu/M/tob6ZklYqVNwnBfpFwS6vkqDpOA1o0y18rmGrEFb
+45phOsQujUUBrC7girB0Vu7PaoIwAmjTFHtKkEEo1MwUTAdBgNVHQ4EFgQUrsWT
yQMRvPoMRxjS7/xG0fGT2V8wHwYDVR0jBBgwFoAUrsWTyQMRvPoMRxjS7/xG0fGT
2V8wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEApq38Q/ySP+zh
vLNcfgAPo1zvHlq46a7yHAdPX+7Ucr8CIFqcmh7ooWMP7zXBJ4Bi9mJeJd7IO7dr
PIbU+S5pnrng
-----END CERTIFICATE-----
`;
const LEAF_PEM = `-----BEGIN CERTIFICATE-----
MIIBgzCCASigAwIBAgIUdHa+DwqTkMxt1tgw4+L+EaCY/DQwCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMbGVhZi5leGFtcGxlMCAXDTI2MTEyMjA5MzUwM1oYDzIxMjYx
MDI5MDkzNTAzWjAXMRUwEwYDVQQDDAxsZWFmLmV4YW1wbGUwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAAR5GUpjYVmn7tOfIECCEyVKSBQCr3dHIBB/TXiUwvlrkwTa
TcOiqrbyODoRjn7H/puMgeJbvTpJVdEd7ftxWoJLo1AwTjAdBgNVHQ4EFgQU9JzK
9z7xg1nKiZHhOPa33BXLJfAwHwYDVR0jBBgwFoAU9JzK9z7xg1nKiZHhOPa33BXL
JfAwDAYDVR0TAQH/BAIwADAKBggqhkjOPQQDAgNJADBGAiEAyvUZz5TLl1SwDweN
vi7/8URQy3i7lft7Xil5PplRoxwCIQC4YoKpiyCH8Ir+gxDhwN/VNkZUdC8pnm8B
u3hSGcix5g==
-----END CERTIFICATE-----
`;
const EXPIRED_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBSTCB8aADAgECAgEBMAoGCCqGSM49BAMCMBUxEzARBgNVBAMMCkV4cGlyZWQg
Q0EwHhcNMDAwMTAxMDAwMDAwWhcNMDEwMTAxMDAwMDAwWjAVMRMwEQYDVQQDDApF
eHBpcmVkIENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqo+1GG1ylf4T7vgj
EYacwIHVU5KrUo6oOk80awCQNSNlYcxrCGo4PApbtA92k0iHGQHscLMiB1rFQw8c
zq2ceKMyMDAwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQUECNmH1NNgerQlJPC
jvf2mgkC9VMwCgYIKoZIzj0EAwIDRwAwRAIgLmmhJ/wQTtshJlPXkHe4NrsAWt65
VjauIEKNuC0fx6QCIHlDnkyWsvI/46SDFiOVZ1Wx5P4PqpXJSpH5jQshNbrC
-----END CERTIFICATE-----
`;

const CERTS = "/archivist/v1/tlscacertificates";
type Cert = { identity: string; display_name: string; tlscacertificate: string; certificate: string };
type CertList = { tlscacertificates: Cert[]; certificates: Cert[]; next_page_token: string };

describe("TLS CA certificates", () => {
  it("accepts both field spellings and escaped line breaks, answering both spellings", async () => {
    const token = await s.token(s.a);
    const res = await s.api(CERTS, {
      method: "POST",
      token,
      json: { display_name: "root", tlscacertificate: CA_PEM },
    });
    expect(res.status).toBe(200);
    const cert = await json<Cert>(res);
    expect(cert.identity).toMatch(/^tlscacertificates\/[0-9a-f-]{36}$/);
    expect(cert).toMatchObject({ display_name: "root", tlscacertificate: CA_PEM, certificate: CA_PEM });

    const escaped = CA_PEM.replace(/\n/g, "\\n");
    const other = await json<Cert>(
      await s.api(CERTS, { method: "POST", token, json: { display_name: "escaped", certificate: escaped } }),
    );
    expect(other.tlscacertificate).toBe(CA_PEM);

    const list = await json<CertList>(await s.api(`${CERTS}?display_name=root`, { token }));
    expect(list.tlscacertificates.map((c) => c.identity)).toEqual([cert.identity]);
    expect(list.certificates).toEqual(list.tlscacertificates);
    expect(list.next_page_token).toBe("");
    const page1 = await json<CertList>(await s.api(`${CERTS}?page_size=1`, { token }));
    expect(page1.certificates).toHaveLength(1);
    expect(page1.next_page_token).not.toBe("");
    expect((await s.api(`${CERTS}?page_size=abc`, { token })).status).toBe(400);
  });

  it("refuses non-CA, expired, unparsable and missing certificates with 400", async () => {
    const token = await s.token(s.a);
    const cases: Array<[unknown, string]> = [
      [{ tlscacertificate: LEAF_PEM }, "not a CA certificate"],
      [{ certificate: EXPIRED_CA_PEM }, "expired"],
      [{ tlscacertificate: "hello" }, "tlscacertificate"],
      [{ tlscacertificate: CA_PEM.replace("MIIB", "MXXB") }, "tlscacertificate"],
      [{ display_name: "none" }, "tlscacertificate"],
      [{ tlscacertificate: 42 }, "tlscacertificate"],
    ];
    for (const [body, text] of cases) {
      const res = await s.api(CERTS, { method: "POST", token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await message(res)).toContain(text);
    }
  });

  it("reads, patches, deletes ({}), with 404 for unknown and other tenancies' certificates", async () => {
    const token = await s.token(s.a);
    const cert = await json<Cert>(
      await s.api(CERTS, { method: "POST", token, json: { display_name: "to-change", certificate: CA_PEM } }),
    );
    const id = cert.identity.slice("tlscacertificates/".length);
    expect(await json<Cert>(await s.api(`${CERTS}/${id}`, { token }))).toEqual(cert);
    const patched = await json<Cert>(
      await s.api(`${CERTS}/${id}`, { method: "PATCH", token, json: { display_name: "changed" } }),
    );
    expect(patched).toMatchObject({ display_name: "changed", certificate: CA_PEM });
    const badPatch = await s.api(`${CERTS}/${id}`, {
      method: "PATCH",
      token,
      json: { certificate: LEAF_PEM },
    });
    expect(badPatch.status).toBe(400);
    const tb = await s.token(s.b);
    expect((await s.api(`${CERTS}/${id}`, { token: tb })).status).toBe(404);
    expect(
      (await s.api(`${CERTS}/${id}`, { method: "PATCH", token: tb, json: { display_name: "x" } })).status,
    ).toBe(404);
    expect((await s.api(`${CERTS}/${id}`, { method: "DELETE", token: tb })).status).toBe(404);
    const del = await s.api(`${CERTS}/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({});
    expect((await s.api(`${CERTS}/${id}`, { token })).status).toBe(404);
    expect((await s.api(`${CERTS}/not-a-uuid`, { token })).status).toBe(404);
  });

  it("answers 402 past the quota, 403 to non-administrators, 401 without a token", async () => {
    const tb = await s.token(s.b);
    const first = await s.api(CERTS, { method: "POST", token: tb, json: { certificate: CA_PEM } });
    expect(first.status).toBe(200);
    expect((await s.api(CERTS, { method: "POST", token: tb, json: { certificate: CA_PEM } })).status).toBe(
      402,
    );
    const id = (await json<Cert>(first)).identity.slice("tlscacertificates/".length);
    await s.api(`${CERTS}/${id}`, { method: "DELETE", token: tb });
    expect((await s.api(CERTS, { method: "POST", token: tb, json: { certificate: CA_PEM } })).status).toBe(
      200,
    );

    const calls: Array<[string, string, unknown?]> = [
      ["GET", CERTS],
      ["POST", CERTS, { certificate: CA_PEM }],
      ["GET", `${CERTS}/${id}`],
      ["PATCH", `${CERTS}/${id}`, { display_name: "x" }],
      ["DELETE", `${CERTS}/${id}`],
    ];
    for (const [method, path, body] of calls) {
      expect((await s.api(path, { method, token: plain, json: body })).status, `${method} ${path}`).toBe(403);
      expect((await s.api(path, { method, json: body })).status, `${method} ${path}`).toBe(401);
    }
  });
});
