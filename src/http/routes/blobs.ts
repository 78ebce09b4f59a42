import { z } from "zod";
import { forbidden } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { mayWrite } from "../../services/access/caller-view.js";
import { uploadBlob } from "../../services/blobs/blob-upload.js";
import { blobForCaller, blobOut } from "../../services/blobs/blobs.js";
import { sendBlob } from "../blob-response.js";
import { StreamedBody } from "../body.js";
import type { HttpDeps } from "../deps.js";
import { multipartFileUpload } from "../multipart-file.js";
import type { RouteTable } from "../route.js";

const BASE = "/archivist/v1/blobs";
const group = "blobsv1";
const download = z.object({
  strict: z.enum(["true", "false"]).optional(),
  allow_insecure: z.enum(["true", "false"]).optional(),
});

/** Blobs: streaming upload, download (strict / allow_insecure, ranges) and metadata. Never listed. */
export function blobRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Upload a blob (multipart/form-data, part `file`)",
    handler: async ({ principal: p, req }) => {
      if (!(await mayWrite(d.ctx, p))) throw forbidden("uploading blobs is not permitted");
      // A multipart body arrives as a stream (inflated if it was compressed); any other is
      // unread, and busboy refuses its content type.
      const stream = req.body instanceof StreamedBody ? req.body.stream : req.raw;
      return blobOut(await uploadBlob(d.ctx, p, multipartFileUpload({ headers: req.headers, stream })));
    },
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Download a blob",
    query: download,
    handler: async ({ principal: p, params, req, res, pairs }) =>
      sendBlob(d.ctx, req, res, await blobForCaller(d.ctx, p, pathUuid(params.uuid, "blob")), pairs),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}/info`,
    group,
    auth: "token",
    summary: "Blob metadata",
    handler: async ({ principal: p, params }) =>
      blobOut(await blobForCaller(d.ctx, p, pathUuid(params.uuid, "blob"))),
  });
}
