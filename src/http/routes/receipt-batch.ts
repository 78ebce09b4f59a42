import { z } from "zod";
import type { Principal } from "../../context.js";
import { ApiError } from "../../errors/api-error.js";
import {
  prefetchEventFacts,
  requireReadableEventOf,
  requireReadableRecord,
} from "../../services/access/readable-records.js";
import { receiptsOfRecords } from "../../services/ledger/receipts-in-bulk.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

/** Records a request may ask for at once: a console page of a trail's records, twice over. */
const RECEIPT_BATCH_MAX = 100;

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
const RECORD = new RegExp(`^(?:(?:public)?assets/(${UUID})/events/(${UUID})|events/(${UUID}))$`);

const receiptBatch = z.object({
  profile: z.enum(["mmr", "rfc9162"]).default("mmr").describe("the receipts' profile, as ?profile= names it"),
  records: z
    .array(
      z
        .string()
        .regex(RECORD, "a record's identity: assets/{uuid}/events/{uuid} or events/{uuid}")
        .describe("a record's identity, as the API names it"),
    )
    .min(1)
    .max(RECEIPT_BATCH_MAX),
});

const receiptBatchAnswer = z.object({
  receipts: z.array(
    z.object({
      record: z.string().describe("the identity asked for"),
      status: z
        .number()
        .int()
        .describe(
          "what GET /archivist/v1/receipts/{record} answers: 200 (receipt given), 401 (not public: a token is required), 404 (not a record you may read), 409 (not sealed yet)",
        ),
      receipt: z.string().optional().describe("the COSE receipt, base64 (status 200 only)"),
    }),
  ),
});

/**
 * The record's id when the caller may read it, as the single receipt routes decide it (the same
 * checks, in the same order); their refusal otherwise (401 without a token, 404 with one).
 */
async function readableId(d: HttpDeps, caller: Principal | undefined, record: string): Promise<string> {
  const m = RECORD.exec(record) as RegExpExecArray;
  const [, asset, event, free] = m.map((x) => x?.toLowerCase());
  if (free) {
    await requireReadableRecord(d.ctx, caller, free);
    return free;
  }
  await requireReadableEventOf(d.ctx, caller, asset as string, event as string);
  return event as string;
}

/** Many records' receipts in one request: what the receipt routes answer each, item by item. */
export function receiptBatchRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: "/archivist/v1/receipts:batch",
    group: "merklelogsv1",
    auth: "optional",
    writes: false,
    summary: `The receipts of up to ${RECEIPT_BATCH_MAX} records in one profile, each answered as GET /archivist/v1/receipts/{record} would answer it (its status, and its receipt when 200); public records need no token`,
    body: receiptBatch,
    response: receiptBatchAnswer,
    handler: async ({ caller, body }) => {
      // The events' access facts in one read; each record is then checked as its own route checks it.
      const events = body.records
        .map((r) => RECORD.exec(r)?.[2]?.toLowerCase())
        .filter((e) => e !== undefined);
      await prefetchEventFacts(d.ctx, events);
      const read = await Promise.all(
        body.records.map((r) =>
          readableId(d, caller, r).then(
            (id) => ({ id }),
            (err: unknown) => {
              if (err instanceof ApiError && err.kind === "not_found") return { refused: 404 };
              if (err instanceof ApiError && err.kind === "unauthenticated") return { refused: 401 };
              throw err;
            },
          ),
        ),
      );
      const ids = read.flatMap((r) => ("id" in r ? [r.id] : []));
      const made = await receiptsOfRecords(d.ctx, [...new Set(ids)], body.profile);
      return {
        receipts: body.records.map((record, i) => {
          const r = read[i] as { id: string } | { refused: number };
          if ("refused" in r) return { record, status: r.refused };
          const receipt = made.get(r.id)?.receipt;
          // Readable but not in the log's latest seal (or checkpoint) yet: what the single route says.
          return receipt
            ? { record, status: 200, receipt: Buffer.from(receipt).toString("base64") }
            : { record, status: 409 };
        }),
      };
    },
  });
}
