import { pathUuid } from "../../errors/path-uuid.js";
import type { AccessView } from "../../services/access/access-view.js";
import { viewFor } from "../../services/access/caller-view.js";
import { attachmentBlob } from "../../services/blobs/attachments.js";
import { blobOut } from "../../services/blobs/blobs.js";
import { publicView } from "../../services/records/assets.js";
import { sendBlob } from "../blob-response.js";
import type { HttpDeps } from "../deps.js";
import type { Call, RouteTable } from "../route.js";

const group = "attachmentsv2";

/** Attachments: blobs read through the record that references them, private and public. */
export function attachmentRoutes(t: RouteTable, d: HttpDeps): void {
  const forms = [
    {
      face: "assets",
      auth: "token" as const,
      view: (c: Call<unknown, unknown>) => viewFor(d.ctx, c.principal),
    },
    { face: "publicassets", auth: "public" as const, view: async () => publicView },
  ];
  for (const f of forms) {
    const base = `/archivist/v2/attachments/${f.face}/{asset}`;
    const blob = async (c: Call<unknown, unknown>, withEvent: boolean) => {
      const view: AccessView = await f.view(c);
      return attachmentBlob(d.ctx, view, {
        assetId: pathUuid(c.params.asset, "asset"),
        eventId: withEvent ? pathUuid(c.params.event, "event") : undefined,
        blobId: pathUuid(c.params.uuid, "attachment"),
      });
    };
    for (const withEvent of [true, false]) {
      const path = withEvent ? `${base}/events/{event}/{uuid}` : `${base}/{uuid}`;
      t.add({
        method: "get",
        path: `${path}/info`,
        group,
        auth: f.auth,
        summary: "Attachment metadata",
        handler: async (c) => blobOut(await blob(c, withEvent)),
      });
      t.add({
        method: "get",
        path,
        group,
        auth: f.auth,
        summary: "Download an attachment",
        handler: async (c) => sendBlob(d.ctx, c.req, c.res, await blob(c, withEvent), c.pairs),
      });
    }
  }
}
