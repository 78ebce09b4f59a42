import { nodeSha256 } from "../../core/node/crypto.js";
import { tlogLeafData } from "../../formats/ledger/tlog-leaf.js";
import { candidateLeaves } from "../../formats/record/api-record.js";
import { assetEventRecord } from "../../formats/record/asset-event.js";
import { freeEventRecord } from "../../formats/record/free-event.js";
import * as tree from "../../formats/rfc9162/index.js";
import type { Queryable } from "../../store/drivers/db.js";
import type { EntryRow } from "../../store/ledger/ledger.js";
import { eventsByIds } from "../../store/records/asset-events.js";
import { freeEventsByIds } from "../../store/records/free-events.js";

/** What a record's row recomputes to: its MMR leaf, and its RFC 9162 tree leaf hash. */
export interface RowLeaf {
  /** The leaves the record's JSON hashes to, as a verifier computes them (an asset-free event's two field orders). */
  leaves: Uint8Array[];
  /** A registered statement's tree leaf is its payload's hash, not the record's leaf. */
  statementPayload?: Uint8Array;
  /** Why the row gives no leaf: it reads as no committed record (moved to another log, say). */
  unreadable?: string;
}

/**
 * The leaves `make` recomputes, or none with the reason: a row rewritten under the log reads as
 * no record at all as often as another one, and is refused as any row that does not give its leaf.
 */
function leavesOf(make: () => Uint8Array[]): Pick<RowLeaf, "leaves" | "unreadable"> {
  try {
    return { leaves: make() };
  } catch (err) {
    return { leaves: [], unreadable: (err as Error).message };
  }
}

/**
 * The leaves the records' rows recompute to, as a verifier recomputes them from the records the
 * API serves (a receipt is signed only for a leaf its record gives): asset events and asset-free
 * events in one query each. A period's link entry has no record: its leaf is the log's own.
 */
export async function rowLeaves(
  db: Queryable,
  entries: ReadonlyArray<Pick<EntryRow, "kind" | "record_id">>,
): Promise<Map<string, RowLeaf>> {
  const out = new Map<string, RowLeaf>();
  const ids = (kind: EntryRow["kind"]) => entries.filter((e) => e.kind === kind).map((e) => e.record_id);
  for (const row of await eventsByIds(db, ids("asset_event")))
    out.set(
      row.id,
      leavesOf(() => candidateLeaves(assetEventRecord(row))),
    );
  for (const row of await freeEventsByIds(db, ids("event"))) {
    const payload = row.attributes.payload;
    out.set(row.id, {
      ...leavesOf(() => candidateLeaves(freeEventRecord(row))),
      ...(row.registered && typeof payload === "string"
        ? { statementPayload: new Uint8Array(Buffer.from(payload, "hex")) }
        : {}),
    });
  }
  return out;
}

/** True when the row's leaves include the logged one (a period's link entry, which has no row, aside). */
export function rowGives(e: Pick<EntryRow, "kind" | "leaf">, row: RowLeaf | undefined): boolean {
  if (e.kind === "period") return true;
  return row?.leaves.some((l) => tree.sameHash(l, e.leaf)) ?? false;
}

/** The RFC 9162 tree leaf hash of the entry, from its row (the logged leaf for a link entry). */
export function treeLeafOf(e: Pick<EntryRow, "leaf">, row: RowLeaf | undefined): Uint8Array {
  return tree.leafHash(
    tlogLeafData({ mmrLeaf: e.leaf, statementPayload: row?.statementPayload }, nodeSha256),
    nodeSha256,
  );
}
