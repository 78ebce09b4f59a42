import { createHash } from "node:crypto";
import { until } from "../../helpers/poll.js";
import type { TestService } from "../../helpers/service.js";

/** Published records for the public verification tests: a live document, a withdrawn one, a vCon trail. */
export interface Published {
  live: { asset: string; v1: Uint8Array; v2: Uint8Array };
  withdrawn: { asset: string; file: Uint8Array };
  vcon: { uuid: string; created: Uint8Array; updated: Uint8Array };
}

export const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const text = (s: string) => new TextEncoder().encode(s);

async function post(
  s: TestService,
  token: string,
  path: string,
  json: unknown,
): Promise<{ identity: string }> {
  const res = await s.api(path, { method: "POST", token, json });
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { identity: string };
}

const publishVersion = (file: Uint8Array, version: string) => ({
  document_hash_value: sha256(file),
  document_hash_alg: "SHA256",
  document_status: "Published",
  document_version: version,
});

function record(asset_attributes: Record<string, unknown>, event_attributes: Record<string, unknown>) {
  return { operation: "Record", behaviour: "RecordEvidence", event_attributes, asset_attributes };
}

async function documentAsset(s: TestService, token: string, title: string, first: Uint8Array) {
  return post(s, token, "/archivist/v2/assets", {
    public: true,
    attributes: {
      arc_profile: "Document",
      arc_display_type: "Policy",
      arc_display_name: title,
      ...publishVersion(first, "1"),
    },
  });
}

function vconEvent(uuid: string, op: string, file: Uint8Array, at: string) {
  return record(
    {},
    {
      arc_display_type: op,
      vcon_operation: op,
      subject: `vcon://${uuid}`,
      payload: sha256(file),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      timestamp_declared: at,
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    },
  );
}

/** Publishes the fixtures through the API and waits until every public event is CONFIRMED. */
export async function publishFixtures(s: TestService): Promise<Published> {
  const token = await s.token(s.a);
  const tag = crypto.randomUUID();
  const v1 = text(`Privacy policy ${tag}, version 1\n`);
  const v2 = text(`Privacy policy ${tag}, version 2\n`);
  const live = await documentAsset(s, token, "Privacy policy", v1);
  await post(s, token, `/archivist/v2/${live.identity}/events`, {
    ...record(publishVersion(v2, "2"), {}),
    principal_declared: {
      issuer: "https://idp.example",
      subject: "policy-team",
      display_name: "Policy Team",
    },
  });
  const old = text(`Retention schedule ${tag}\n`);
  const gone = await documentAsset(s, token, "Retention schedule", old);
  await post(
    s,
    token,
    `/archivist/v2/${gone.identity}/events`,
    record({ document_status: "Withdrawn" }, { arc_description: "superseded by law" }),
  );
  const uuid = crypto.randomUUID();
  const created = text(JSON.stringify({ vcon: "0.0.2", uuid, parties: [], dialog: [] }));
  const updated = text(JSON.stringify({ vcon: "0.0.2", uuid, parties: [{ name: "Ann" }], dialog: [] }));
  // What the conserver hashes after re-serialising: Python json.dumps defaults, written out by hand.
  const updatedPython = text(
    `{"vcon": "0.0.2", "uuid": "${uuid}", "parties": [{"name": "Ann"}], "dialog": []}`,
  );
  const trail = await post(s, token, "/archivist/v2/assets", {
    public: true,
    attributes: { arc_display_type: "vcon", arc_display_name: `vcon://${uuid}` },
  });
  for (const [op, file, at] of [
    ["vcon_created", created, "2025-01-01T00:00:00Z"],
    ["vcon_updated", updatedPython, "2025-01-02T00:00:00Z"],
  ] as const)
    await post(s, token, `/archivist/v2/${trail.identity}/events`, vconEvent(uuid, op, file, at));
  await untilConfirmed(
    s,
    [live, gone, trail].map((a) => a.identity.split("/")[1] ?? ""),
  );
  return {
    live: { asset: live.identity, v1, v2 },
    withdrawn: { asset: gone.identity, file: old },
    vcon: { uuid, created, updated },
  };
}

/** Waits until every event of the public assets is CONFIRMED and has a receipt (the log sealed it). */
async function untilConfirmed(s: TestService, assets: string[]): Promise<void> {
  for (const uuid of assets)
    await until(async () => {
      const { events } = (await (await s.api(`/archivist/v2/publicassets/${uuid}/events`)).json()) as {
        events: Array<{ identity: string; confirmation_status: string }>;
      };
      for (const e of events) {
        if (e.confirmation_status !== "CONFIRMED" && e.confirmation_status !== "UNEQUIVOCAL")
          return undefined;
        const [, a, , id] = e.identity.split("/");
        if ((await s.api(`/archivist/v1/receipts/assets/${a}/events/${id}`)).status !== 200) return undefined;
      }
      return true;
    }, 30_000);
}
