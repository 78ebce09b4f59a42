import { describe, expect, it } from "vitest";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { until } from "../../helpers/poll.js";
import { adminAndReader, forSuite, plainApplication } from "../../helpers/service.js";
import { VCON_CREATED_EVENT } from "../../helpers/vcon-event.js";

// A fifth pass over least privilege: routes that answer about a record the caller may read in
// part, or about records it may not read at all, must not tell it more than its grant does.
const suite = forSuite(() => adminAndReader({ display_name: "reader", custom_claims: { team: "blue" } }));

async function post<T>(path: string, json: unknown, token = suite.admin): Promise<T> {
  const res = await suite.s.api(path, { method: "POST", token, json });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

type Compliance = {
  compliant: boolean;
  compliance: Array<{ compliance_policy_identity: string; compliant: boolean; reason: string }>;
};

describe("compliance answers", () => {
  it("are evaluated over the asset attributes the caller may read: no hidden value, no hidden match", async () => {
    const asset = await post<{ identity: string }>("/archivist/v2/assets", {
      attributes: { arc_display_type: "ledger-box", team: "blue", salary: "91234" },
    });
    await grantAccess(suite.s, suite.admin, "boxes, type only", "attributes.arc_display_type=ledger-box", {
      asset_attributes_read: ["arc_display_type"],
      event_arc_display_type_read: ["*"],
      ...applicationSubject(suite.readerId),
    });
    const richness = await post<{ identity: string }>("/archivist/v1/compliance_policies", {
      compliance_type: "COMPLIANCE_RICHNESS",
      display_name: "salary cap",
      asset_filter: [{ or: ["attributes.arc_display_type=ledger-box"] }],
      richness_assertions: [{ or: ["salary<1000"] }],
    });
    const byHidden = await post<{ identity: string }>("/archivist/v1/compliance_policies", {
      compliance_type: "COMPLIANCE_RICHNESS",
      display_name: "selected by salary",
      asset_filter: [{ or: ["attributes.salary=91234"] }],
      richness_assertions: [{ or: ["arc_display_type=ledger-box"] }],
    });
    const path = `/archivist/v1/compliance/${asset.identity}`;
    const seen = async (token: string) => {
      const res = await suite.s.api(path, { token });
      expect(res.status).toBe(200);
      return (await res.json()) as Compliance;
    };
    // The administrator reads the salary: both policies apply, and the cap names the value.
    const whole = await seen(suite.admin);
    expect(whole.compliance.map((c) => c.compliance_policy_identity).sort()).toEqual(
      [richness.identity, byHidden.identity].sort(),
    );
    expect(JSON.stringify(whole)).toContain("91234");
    // The reader does not: the salary is missing to it, so a policy selected by the salary does
    // not apply, and the cap fails as on a missing attribute, without the value.
    const partial = await seen(suite.reader);
    expect(JSON.stringify(partial)).not.toContain("91234");
    expect(partial.compliance.map((c) => c.compliance_policy_identity)).toEqual([richness.identity]);
    expect(partial.compliance[0]?.compliant).toBe(false);
    expect(partial.compliance[0]?.reason).toContain("salary is missing");
  });
});

describe("asset-free events' statements", () => {
  it("are read by the tenancy's administrators only, as every other read of an asset-free event", async () => {
    const free = await post<{ identity: string }>("/archivist/v1/events", { attributes: VCON_CREATED_EVENT });
    const path = `/archivist/v1/${free.identity}/statement`;
    // The administrator's statement, with its receipt once the record is sealed.
    await until(async () => {
      await suite.s.service.workers.flush();
      const r = await suite.s.api(`${path}?transparent=true`, { token: suite.admin });
      return r.status === 200 ? true : undefined;
    }, 30_000);
    // Even a reader granted every asset reads no asset-free event.
    await grantAccess(suite.s, suite.admin, "every asset", "attributes.arc_display_type!=nothing-at-all", {
      asset_attributes_read: ["*"],
      event_arc_display_type_read: ["*"],
      ...applicationSubject(suite.readerId),
    });
    expect((await suite.s.api(`/archivist/v1/${free.identity}`, { token: suite.reader })).status).toBe(403);
    for (const q of ["", "?transparent=true"]) {
      const res = await suite.s.api(`${path}${q}`, { token: suite.reader });
      expect(res.status, `${path}${q}`).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/json/);
      // As for an event that does not exist.
      const none = await suite.s.api(`/archivist/v1/events/${crypto.randomUUID()}/statement${q}`, {
        token: suite.reader,
      });
      expect(none.status).toBe(404);
      expect(((await res.json()) as { code: number }).code).toBe(
        ((await none.json()) as { code: number }).code,
      );
    }
  });
});

describe("blobs read directly", () => {
  async function upload(token: string): Promise<string> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3, 4])]), "f");
    const res = await suite.s.api("/archivist/v1/blobs", { method: "POST", token, body: form });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { identity: string }).identity;
  }

  it("answer another's blob as one that does not exist: no id is told to be a blob", async () => {
    await grantAccess(suite.s, suite.admin, "reader uploads", "attributes.arc_display_type=reader-box", {
      asset_attributes_read: ["arc_display_type"],
      ...applicationSubject(suite.readerId),
    });
    const admins = await upload(suite.admin);
    const own = await upload(suite.reader);
    const none = `blobs/${crypto.randomUUID()}`;
    for (const suffix of ["", "/info"]) {
      expect((await suite.s.api(`/archivist/v1/${own}${suffix}`, { token: suite.reader })).status).toBe(200);
      expect((await suite.s.api(`/archivist/v1/${admins}${suffix}`, { token: suite.admin })).status).toBe(
        200,
      );
      expect((await suite.s.api(`/archivist/v1/${own}${suffix}`, { token: suite.admin })).status).toBe(200);
      const refused = await suite.s.api(`/archivist/v1/${admins}${suffix}`, { token: suite.reader });
      const missing = await suite.s.api(`/archivist/v1/${none}${suffix}`, { token: suite.reader });
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual(await missing.json());
    }
  });
});

describe("an event's blob and location references", () => {
  it("are checked only for a caller who may write the event: no answer tells a blob, its hash or a location", async () => {
    const form = new FormData();
    form.append("file", new Blob([new TextEncoder().encode("yes")]), "verdict");
    const upload = await suite.s.api("/archivist/v1/blobs", {
      method: "POST",
      token: suite.admin,
      body: form,
    });
    const blob = (await upload.json()) as { identity: string; hash: { value: string } };
    const asset = await post<{ identity: string }>("/archivist/v2/assets", {
      attributes: { arc_display_type: "case" },
    });
    const location = await post<{ identity: string }>("/archivist/v2/locations", {
      display_name: "vault",
      description: "where the verdicts are",
    });
    const attachment = (identity: string, hash: string) => ({
      arc_attribute_type: "arc_attachment",
      arc_blob_identity: identity,
      arc_blob_hash_alg: "SHA256",
      arc_blob_hash_value: hash,
      arc_file_name: "verdict",
    });
    const none = crypto.randomUUID();
    const guesses = [
      { event: { verdict: attachment(blob.identity, blob.hash.value) }, asset: {} },
      { event: { verdict: attachment(blob.identity, "00".repeat(32)) }, asset: {} },
      { event: { verdict: attachment(`blobs/${none}`, "00".repeat(32)) }, asset: {} },
      { event: {}, asset: { arc_home_location_identity: location.identity } },
      { event: {}, asset: { arc_home_location_identity: `locations/${none}` } },
    ];
    const send = (token: string, on: string, g: (typeof guesses)[number]) =>
      suite.s.api(`/archivist/v2/${on}/events`, {
        method: "POST",
        token,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { arc_display_type: "note", ...g.event },
          asset_attributes: g.asset,
        },
      });
    // A new identity, with no policy: every guess answers as an asset it cannot see.
    const stranger = await plainApplication(suite.s, suite.admin, { display_name: "stranger" });
    for (const on of [asset.identity, `assets/${none}`])
      for (const g of guesses) {
        const res = await send(stranger.token, on, g);
        expect(res.status, JSON.stringify(g)).toBe(404);
        expect(await res.json()).toEqual({ code: 5, message: "asset not found", details: [] });
      }
    // Whoever may write the event still hears what is wrong with its references.
    const wrong = await send(suite.admin, asset.identity, guesses[1] as (typeof guesses)[number]);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toContain("does not match");
    expect((await send(suite.admin, asset.identity, guesses[0] as (typeof guesses)[number])).status).toBe(
      200,
    );
  });
});

describe("a writer's references to blobs", () => {
  it("name only blobs it may read directly: another's answers as no blob, whatever hash is guessed", async () => {
    const writer = await plainApplication(suite.s, suite.admin, { display_name: "writer" });
    await grantAccess(
      suite.s,
      suite.admin,
      "writer records notes",
      "attributes.arc_display_type=writer-box",
      {
        asset_attributes_read: ["arc_display_type"],
        behaviours: ["RecordEvidence"],
        event_arc_display_type_read: ["note"],
        event_arc_display_type_write: ["note"],
        ...applicationSubject(writer.clientId),
      },
    );
    const asset = await post<{ identity: string }>("/archivist/v2/assets", {
      attributes: { arc_display_type: "writer-box" },
    });
    const upload = async (token: string, text: string) => {
      const form = new FormData();
      form.append("file", new Blob([new TextEncoder().encode(text)]), "memo");
      const res = await suite.s.api("/archivist/v1/blobs", { method: "POST", token, body: form });
      expect(res.status).toBe(200);
      return (await res.json()) as { identity: string; hash: { value: string } };
    };
    const secret = await upload(suite.admin, "no");
    const own = await upload(writer.token, "memo");
    const attach = (token: string, identity: string, hash: string) =>
      suite.s.api(`/archivist/v2/${asset.identity}/events`, {
        method: "POST",
        token,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: {
            arc_display_type: "note",
            memo: {
              arc_attribute_type: "arc_attachment",
              arc_blob_identity: identity,
              arc_blob_hash_alg: "SHA256",
              arc_blob_hash_value: hash,
              arc_file_name: "memo",
            },
          },
        },
      });
    expect((await attach(writer.token, own.identity, own.hash.value)).status).toBe(200);
    const missing = await attach(writer.token, `blobs/${crypto.randomUUID()}`, "00".repeat(32));
    expect(missing.status).toBe(400);
    const noBlob = ((await missing.json()) as { message: string }).message;
    for (const hash of [secret.hash.value, "00".repeat(32)]) {
      const res = await attach(writer.token, secret.identity, hash);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe(noBlob);
    }
    // The administrator, who reads every blob of the tenancy, references it.
    expect((await attach(suite.admin, secret.identity, secret.hash.value)).status).toBe(200);
  });
});
