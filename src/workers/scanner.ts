import type { Ctx } from "../context.js";
import { scanBlob } from "../core/blobs/index.js";
import { recordScan, unscannedBlobs } from "../store/blobstore/blobs.js";
import { clamdScan } from "./clamd.js";

const BATCH = 100;

function clamdTarget(socket: string): { path?: string; host?: string; port?: number } {
  const m = /^([^/:]+):(\d+)$/.exec(socket);
  return m ? { host: m[1] as string, port: Number(m[2]) } : { path: socket };
}

/**
 * Scans every blob not yet scanned, a batch at a time: the built-in checks first, then
 * ClamAV when a clamd socket is configured. A bad blob stays stored as evidence; the
 * download routes refuse it unless `allow_insecure=true`.
 */
export async function scanBatch(ctx: Ctx): Promise<void> {
  for (;;) {
    const batch = await unscannedBlobs(ctx.db, BATCH);
    for (const blob of batch) {
      const bytes = await ctx.blobs.read(blob.hash);
      let verdict = scanBlob(bytes, blob.mime_type);
      if (verdict.status === "SCANNED_OK" && ctx.config.clamdSocket) {
        try {
          verdict = await clamdScan(bytes, clamdTarget(ctx.config.clamdSocket), 30_000);
        } catch (err) {
          // No verdict: leave the blob NOT_SCANNED for the next batch rather than guess.
          ctx.log.warn({ err, blob: blob.id }, "clamd gave no verdict; batch stopped");
          return;
        }
      }
      await recordScan(
        ctx.db,
        blob.id,
        verdict.status,
        verdict.status === "SCANNED_BAD" ? verdict.reason : "",
      );
      ctx.log.info({ blob: blob.id, status: verdict.status, reason: verdict.reason }, "blob scanned");
    }
    if (batch.length < BATCH) return;
  }
}
