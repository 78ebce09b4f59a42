import { expect } from "vitest";
import { applicationSubject, grantAccess } from "./access-policy.js";
import type { TestService } from "./service.js";

/** A suite of `adminAndReader`: the tenancy's administrator and a reader no policy grants yet. */
export interface ReaderSuite {
  readonly s: TestService;
  readonly admin: string;
  readonly reader: string;
  readonly readerId: string;
}

export type Rec = { identity: string };

/** POSTs `json` to `path` as `token` (the administrator by default); anything but 200 fails the test. */
async function created<T>(suite: ReaderSuite, path: string, json: unknown, token = suite.admin): Promise<T> {
  const res = await suite.s.api(path, { method: "POST", token, json });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

/** A new event of `type` on `asset`, optionally changing the asset's attributes. */
export const eventOf = (
  suite: ReaderSuite,
  asset: Rec,
  type: string,
  assetAttributes?: Record<string, string>,
) =>
  created<Rec>(suite, `/archivist/v2/${asset.identity}/events`, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { arc_display_type: type },
    ...(assetAttributes ? { asset_attributes: assetAttributes } : {}),
  });

/**
 * The records the receipt routes' access rules are tried on: a blue team's call (a
 * `vcon_created` and a `vcon_note` event) and a public asset's `vcon_created`.
 */
export async function teamAndPublicRecords(suite: ReaderSuite) {
  const team = await created<Rec>(suite, "/archivist/v2/assets", {
    attributes: { arc_display_type: "call", team: "blue" },
  });
  const call = await eventOf(suite, team, "vcon_created");
  const note = await eventOf(suite, team, "vcon_note");
  const publicAsset = await created<Rec>(suite, "/archivist/v2/assets", {
    attributes: { arc_display_type: "call" },
    public: true,
  });
  const pub = await eventOf(suite, publicAsset, "vcon_created");
  return { team, call, note, publicAsset, pub };
}

/** Grants the reader the blue team's `vcon_created` events, and nothing else. */
export function grantBlueCreated(suite: ReaderSuite): Promise<unknown> {
  return grantAccess(suite.s, suite.admin, "blue team reads created calls", "attributes.team=blue", {
    asset_attributes_read: ["team"],
    event_arc_display_type_read: ["vcon_created"],
    behaviours: [],
    event_arc_display_type_write: [],
    asset_attributes_write: [],
    ...applicationSubject(suite.readerId),
  });
}
