import { until } from "./poll.js";
import type { TestService } from "./service.js";

/** A template-0.3.0 Record event of one vCon operation, declared on `date` (YYYY-MM-DD). */
export function vconEvent(vcon: string, operation: string, date: string, payload = "ab".repeat(32)) {
  return {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: {
      arc_display_type: operation,
      vcon_operation: operation,
      payload,
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      subject: `vcon://${vcon}`,
      timestamp_declared: `${date}T10:00:00Z`,
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    },
  };
}

/** A template-0.3.0 event of a created vCon, for statements made in known-answer and hostile-input tests. */
export const VCON_CREATED_EVENT = {
  arc_display_type: "vcon_created",
  payload: "ab".repeat(32),
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject: "vcon://0190b6a1-0000-7000-8000-000000000001",
  timestamp_declared: "2025-01-01T00:00:00Z",
  vcon_operation: "vcon_created",
  vcon_draft_version: "01",
  scitt_draft_version: "10",
};

/** Waits until every event of `asset` (assets/<uuid>) is under a seal (CONFIRMED or UNEQUIVOCAL). */
export async function untilSealed(s: TestService, token: string, asset: string): Promise<void> {
  await until(async () => {
    const list = (await (await s.api(`/archivist/v2/${asset}/events`, { token })).json()) as {
      events: Array<{ confirmation_status: string }>;
    };
    return list.events.every((e) => ["CONFIRMED", "UNEQUIVOCAL"].includes(e.confirmation_status))
      ? true
      : undefined;
  });
}

/** A new asset of the caller's tenancy (a vCon's, unless another display type is given): its identity. */
export async function newAsset(s: TestService, token: string, displayType = "vcon"): Promise<string> {
  const res = await s.api("/archivist/v2/assets", {
    method: "POST",
    token,
    json: { attributes: { arc_display_type: displayType } },
  });
  return ((await res.json()) as { identity: string }).identity;
}

/** A vCon operation's event posted on `asset` (see `vconEvent`): the stored event's identity. */
export async function postVconEvent(
  s: TestService,
  token: string,
  asset: string,
  ...event: Parameters<typeof vconEvent>
): Promise<{ identity: string }> {
  const res = await s.api(`/archivist/v2/${asset}/events`, {
    method: "POST",
    token,
    json: vconEvent(...event),
  });
  return (await res.json()) as { identity: string };
}
