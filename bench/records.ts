import { call, field } from "./http.js";
import type { Deployment } from "./service.js";

/** Creates an asset through the API and returns its identity (`assets/<uuid>`). */
export async function createAsset(d: Deployment, token: string, name: string): Promise<string> {
  const a = await call(d.origin, "POST", "/archivist/v2/assets", {
    token,
    json: {
      behaviours: ["RecordEvidence"],
      attributes: { arc_display_name: name, arc_display_type: "bench" },
    },
  });
  const id = field(a, "identity");
  if (a.status !== 200 || !id) throw new Error(`create asset: ${a.status} ${a.text.slice(0, 200)}`);
  return id;
}

/** Records one event on an asset through the API and returns its identity (`assets/<a>/events/<e>`). */
export async function postEvent(
  d: Deployment,
  token: string,
  asset: string,
  attributes: Record<string, string>,
): Promise<string> {
  const a = await call(d.origin, "POST", `/archivist/v2/${asset}/events`, {
    token,
    json: { operation: "Record", behaviour: "RecordEvidence", event_attributes: attributes },
  });
  const id = field(a, "identity");
  if (a.status !== 200 || !id) throw new Error(`create event: ${a.status} ${a.text.slice(0, 200)}`);
  return id;
}
