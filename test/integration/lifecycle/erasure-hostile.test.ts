import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../../helpers/poll.js";
import { forSuite, serviceForSuite, startTestService } from "../../helpers/service.js";
import { newAsset, untilSealed, vconEvent } from "../../helpers/vcon-event.js";

// A hostile pass over erasure (docs/vcon-lifecycle.md, §4): once erased, a value is nowhere the
// service can give it back from, and an erasure is done whole or not at all.
const suite = serviceForSuite();

type Rec = Record<string, unknown> & {
  identity: string;
  event_attributes?: Record<string, unknown>;
  attributes?: Record<string, unknown>;
  erasable?: Record<string, Record<string, Record<string, unknown>>>;
};

// A restart gives new tokens.
let token: string | undefined;
const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
  suite.s.api(path, { token: token ?? suite.token, ...init });

async function setPolicy(): Promise<void> {
  const r = await api("/archivist/v1/erasure/policy", {
    method: "PUT",
    json: { attributes: ["party_tel", "party_name"] },
  });
  expect(r.status).toBe(200);
}

/** A vCon recorded on two assets and by an asset-free event, each holding `tel`: its records' identities. */
async function vconOnTwoAssets(vcon: string, tel: string): Promise<{ assets: string[]; records: string[] }> {
  const assets = [
    await newAsset(suite.s, token ?? suite.token),
    await newAsset(suite.s, token ?? suite.token),
  ];
  const records: string[] = [];
  for (const [i, asset] of assets.entries()) {
    const e = vconEvent(vcon, i === 0 ? "vcon_created" : "vcon_enhanced", "2026-01-02");
    const res = await api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      json: { ...e, event_attributes: { ...e.event_attributes, party_tel: tel } },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    records.push(((await res.json()) as Rec).identity);
  }
  const free = await api("/archivist/v1/events", {
    method: "POST",
    json: {
      // Template-carrying, as vcon-server's datatrails link writes it: it has a signed statement too.
      attributes: { ...vconEvent(vcon, "vcon_created", "2026-01-02").event_attributes, party_tel: tel },
      trails: [`vcon://${vcon}`],
    },
  });
  expect(free.status, await free.clone().text()).toBe(200);
  records.push(((await free.json()) as Rec).identity);
  return { assets, records };
}

/** The erasure records (asset events and asset-free events) naming the vCon. */
async function erasureRecords(vcon: string): Promise<string[]> {
  const subject = encodeURIComponent(`vcon://${vcon}`);
  const events = (await (
    await api(
      `/archivist/v2/assets/-/events?event_attributes.subject=${subject}&event_attributes.vcon_operation=vcon_attributes_erased`,
    )
  ).json()) as { events: Rec[] };
  const free = (await (
    await api("/archivist/v1/events/search", {
      method: "POST",
      json: {
        filter: `attributes/subject eq 'vcon://${vcon}' and attributes/vcon_operation eq 'vcon_attributes_erased'`,
      },
    })
  ).json()) as { events: Rec[] };
  return [...events.events, ...free.events].map((r) => r.identity);
}

async function read(identity: string): Promise<Rec> {
  const path = identity.startsWith("events/") ? `/archivist/v1/${identity}` : `/archivist/v2/${identity}`;
  const res = await api(path);
  expect(res.status).toBe(200);
  return (await res.json()) as Rec;
}

const telOf = (r: Rec) =>
  (r.erasable?.event_attributes ?? r.erasable?.attributes)?.party_tel as
    | { disclosed?: { value: string; salt: string }; erased?: Record<string, string> }
    | undefined;

describe("erasure against a hostile reader", () => {
  it("a crash mid-erasure leaves it not done (no erasure recorded, every value there), never half; the retry does it once", async () => {
    await setPolicy();
    const vcon = randomUUID();
    const tel = `+1 555 ${randomUUID()}`;
    const { records } = await vconOnTwoAssets(vcon, tel);
    const db = suite.s.service.ctx.db;
    // The process "dies" when it first comes to delete a value: every statement after fails.
    await db.query(`create or replace function rederase_crash() returns trigger language plpgsql as $$
      begin raise exception 'crash mid-erasure'; end $$`);
    await db.query(
      "create trigger rederase_crash before update on erasable_values for each row execute function rederase_crash()",
    );
    try {
      const crashed = await api("/archivist/v1/erasures", {
        method: "POST",
        json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17 request 2026-0099" },
      });
      expect(crashed.status).not.toBe(200);
    } finally {
      await db.query("drop trigger rederase_crash on erasable_values");
      await db.query("drop function rederase_crash()");
    }
    // Not done: the log does not say the values were erased while the service still discloses them.
    expect(await erasureRecords(vcon)).toEqual([]);
    for (const id of records) expect(telOf(await read(id))?.disclosed?.value, id).toBe(tel);

    const retried = await api("/archivist/v1/erasures", {
      method: "POST",
      json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17 request 2026-0099" },
    });
    expect(retried.status, await retried.clone().text()).toBe(200);
    const answer = (await retried.json()) as { erasures: string[]; erased: unknown[] };
    // One erasure record per asset, one asset-free one: each recorded once.
    expect(answer.erasures).toHaveLength(3);
    expect((await erasureRecords(vcon)).sort()).toEqual([...answer.erasures].sort());
    for (const id of records) {
      const erased = telOf(await read(id))?.erased;
      expect(erased?.basis, id).toBe("GDPR Art. 17 request 2026-0099");
      expect(answer.erasures).toContain(erased?.record);
    }
  });

  it("once erased, no route, filter, bundle or table of the database holds the value or its salt, after a restart too", async () => {
    await setPolicy();
    const vcon = randomUUID();
    const tel = `+1 555 ${randomUUID()}`;
    const { assets, records } = await vconOnTwoAssets(vcon, tel);
    const salts = await Promise.all(records.map(async (id) => telOf(await read(id))?.disclosed?.salt ?? ""));
    expect(salts.every((s) => s.length > 0)).toBe(true);
    const secrets = [tel, ...salts];
    const forms = secrets.flatMap((s) => [s, Buffer.from(s).toString("hex"), encodeURIComponent(s)]);
    const leaks = async (): Promise<string[]> => {
      const found: string[] = [];
      const q = encodeURIComponent(tel);
      const sub = encodeURIComponent(`vcon://${vcon}`);
      const searches = [
        `attributes/subject eq 'vcon://${vcon}'`,
        `attributes/party_tel eq '${tel}'`,
        `contains(attributes/party_tel, '555')`,
      ];
      for (const filter of searches) {
        const body = Buffer.from(
          await (
            await api("/archivist/v1/events/search", { method: "POST", json: { filter } })
          ).arrayBuffer(),
        );
        for (const f of forms) if (body.includes(f)) found.push(`search ${filter} holds ${f}`);
      }
      // A guess of the value selects nothing: no filter, search or count confirms it.
      const guessed = [
        await api(`/archivist/v2/assets/-/events?event_attributes.party_tel=${q}`),
        await api(
          `/archivist/v2/assets/-/events?event_attributes.subject=${sub}&event_attributes.party_tel=${q}`,
        ),
        await api("/archivist/v1/events/search", {
          method: "POST",
          json: { filter: `attributes/party_tel eq '${tel}'` },
        }),
      ];
      for (const r of guessed) {
        const { events } = (await r.json()) as { events: Rec[] };
        if (events.length > 0)
          found.push(`a filter on the value found ${events.map((e) => e.identity).join(", ")}`);
        const total = r.headers.get("x-total-count");
        if (total !== null && total !== "0") found.push(`a filter on the value counted ${total}`);
      }
      for (const path of [
        `/archivist/v2/assets/-/events?event_attributes.subject=${sub}`,
        `/archivist/v2/assets/-/events?event_attributes.party_tel=${q}`,
        `/archivist/v1/evidence/vcons/${vcon}`,
        `/archivist/v1/consent/vcons/${vcon}`,
        ...assets.map((a) => `/archivist/v2/${a}`),
        ...records.map((r) => (r.startsWith("events/") ? `/archivist/v1/${r}` : `/archivist/v2/${r}`)),
        ...records.map((r) =>
          r.startsWith("assets/")
            ? `/archivist/v2/${r}/statement?transparent=true`
            : `/archivist/v1/${r}/statement?transparent=true`,
        ),
        `/archivist/v1/statements?subject=${sub}`,
      ]) {
        const r = await api(path);
        expect(r.status, path).toBe(200);
        const body = Buffer.from(await r.arrayBuffer());
        for (const f of forms)
          if (body.includes(f) || body.toString("latin1").includes(f)) found.push(`${path} holds ${f}`);
      }
      // Every table, bytea columns as hex: nothing kept aside (queues, archives, audit rows).
      const db = suite.s.service.ctx.db;
      const tables = await db.query<{ t: string }>(
        `select table_name as t from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`,
      );
      for (const { t } of tables)
        for (const f of forms) {
          const rows = await db.query<{ n: string }>(
            `select count(*) as n from "${t}" x where strpos(x::text, $1) > 0`,
            [f],
          );
          if (Number(rows[0]?.n) > 0) found.push(`table ${t} holds ${f}`);
        }
      // Nor any file the service keeps (the blob store, archives of closed periods, keys). The
      // database's own files are its storage, read above through SQL: their write-ahead log and
      // dead row versions keep the old bytes until recycled, as its backups do (docs §4).
      const files = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
          d.isDirectory()
            ? d.name === "pgdata"
              ? []
              : files(join(dir, d.name))
            : d.isFile()
              ? [join(dir, d.name)]
              : [],
        );
      for (const file of files(suite.s.dataDir)) {
        const bytes = readFileSync(file);
        for (const f of forms) if (bytes.includes(f)) found.push(`file ${file} holds ${f}`);
      }
      return found;
    };
    for (const a of assets) await untilSealed(suite.s, token ?? suite.token, a);
    // The search finds the value where it is before the erasure: it is not blind.
    expect(await leaks()).toEqual(expect.arrayContaining([`table erasable_values holds ${tel}`]));
    const res = await api("/archivist/v1/erasures", {
      method: "POST",
      json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17" },
    });
    expect(res.status).toBe(200);

    expect(await leaks()).toEqual([]);
    await suite.s.restart();
    token = await suite.s.token(suite.s.a);
    expect(await leaks()).toEqual([]);
    // Still said erased, by the record that erased it.
    for (const id of records) expect(telOf(await read(id))?.erased?.basis, id).toBe("GDPR Art. 17");
    await until(async () => ((await erasureRecords(vcon)).length === 3 ? true : undefined));
  });

  it("refuses to make erasable what the consent and erasure records are read by: a grant would grant nothing, and no erasure could be recorded", async () => {
    for (const name of [
      "consent_purpose",
      "erased_records",
      "erased_attributes",
      "verified_grant",
      "breach_id",
    ]) {
      const r = await api("/archivist/v1/erasure/policy", { method: "PUT", json: { attributes: [name] } });
      expect(r.status, name).toBe(400);
    }
    const vcon = randomUUID();
    const asset = await newAsset(suite.s, token ?? suite.token);
    const e = vconEvent(vcon, "vcon_consent_accepted", "2026-01-02");
    const grant = await api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      json: {
        ...e,
        event_attributes: { ...e.event_attributes, consent_purpose: "ai_training" },
        erasable_attributes: ["consent_purpose"],
      },
    });
    expect(grant.status).toBe(400);
  });
});

describe("consent revoked in the same write as its grant", () => {
  // No committer: the records stay uncommitted, where only their acceptance time orders them.
  const held = forSuite(async () => {
    const s = await startTestService({ ARCHIVIST_NO_WORKERS: "true" });
    return { s, token: await s.token(s.a) };
  });

  it("is revoked: the consent answer says so and no verification is recorded for a processing", async () => {
    const vcon = randomUUID();
    const consent = (op: string) => {
      const e = vconEvent(vcon, op, "2026-01-02");
      return { ...e, event_attributes: { ...e.event_attributes, consent_purpose: "ai_training" } };
    };
    // One request, one group: the grant and then its revocation share one acceptance time.
    const made = await held.s.api("/archivist/v2/assets:withEvents", {
      method: "POST",
      token: held.token,
      json: {
        attributes: { arc_display_type: "vcon" },
        events: [consent("vcon_consent_accepted"), consent("vcon_consent_revoked")],
      },
    });
    expect(made.status, await made.clone().text()).toBe(200);
    const { events } = (await made.json()) as { events: Array<Rec & { timestamp_accepted: string }> };
    expect(events[0]?.timestamp_accepted).toBe(events[1]?.timestamp_accepted);
    const got = await held.s.api(`/archivist/v1/consent/vcons/${vcon}?purpose=ai_training`, {
      token: held.token,
    });
    expect(got.status).toBe(200);
    const answer = (await got.json()) as { consents: Array<{ state: string; decided_by?: string }> };
    expect(answer.consents[0]).toMatchObject({ state: "revoked", decided_by: events[1]?.identity });
    const verified = await held.s.api(`/archivist/v1/consent/vcons/${vcon}/verifications`, {
      method: "POST",
      token: held.token,
      json: { purpose: "ai_training", operation: "vcon_inference_performed" },
    });
    expect(verified.status).toBe(200);
    expect(await verified.json()).toMatchObject({ state: "revoked", verification: null });
  });
});
