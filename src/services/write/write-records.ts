import type { Keyring } from "../../keys/keyring.js";
import type { Queryable } from "../../store/drivers/db.js";
import type { FreeEventRow } from "../../store/records/free-events.js";
import { tenantWalletAddress } from "../identity/tenant-wallet.js";
import {
  type PendingEvent,
  type TenancyWallets,
  type WrittenEvents,
  writeEventGroup,
} from "./asset-event-group.js";
import { type PendingFreeEvent, writeFreeEventGroup } from "./free-event-group.js";
import type { Outcome } from "./group-commit.js";

/**
 * A record checked and ready to be written, carrying its erasable values: an asset event (or an
 * asset's creation, with its first events as followers), or an asset-free event (a caller's, or
 * the service's own, which no quota is charged for).
 */
export type PendingRecord = PendingEvent | PendingFreeEvent;

/** What a group answers a record: an asset event's rows (its own, then its followers'), or an asset-free event's row. */
export type WrittenRecord = WrittenEvents | FreeEventRow;

export function isAssetEvent(r: PendingRecord): r is PendingEvent {
  return "assetId" in r;
}

function isFreeEvent(r: PendingRecord): r is PendingFreeEvent {
  return !("assetId" in r);
}

/** The tenancy a record is written in. */
export function tenancyOf(r: PendingRecord): string {
  return isAssetEvent(r) ? r.tenantId : r.tenant_id;
}

/**
 * The wallet addresses (the `from` of their events) of the tenancies a group's asset events are
 * posted in, read through the keyring before the group's transaction: the keyring reads through
 * the database handle, which waits for that very transaction on PGlite (issue 31).
 */
export async function tenancyWallets(
  keys: Keyring,
  records: readonly PendingRecord[],
): Promise<TenancyWallets> {
  const tenants = new Set<string>();
  for (const r of records) if (isAssetEvent(r)) tenants.add(r.tenantId);
  const ordered = [...tenants];
  const addresses = await Promise.all(ordered.map((t) => tenantWalletAddress(keys, t)));
  return new Map(ordered.map((t, i) => [t, addresses[i] as string]));
}

/**
 * The one write of records, inside a group's transaction: every kind, each record with its
 * erasable values in the same statement as the record. Asset events first (the assets they
 * create inserted, the others locked and each event authorised against its own; one insert for
 * the events), then asset-free events (each tenancy's quota charged once, for its callers' events
 * alone; one insert). A refused record fails alone and leaves nothing, its values included;
 * throwing fails the group. One outcome per record, in order.
 */
export async function writeRecords(
  tx: Queryable,
  records: PendingRecord[],
  wallets: TenancyWallets,
): Promise<Array<Outcome<WrittenRecord>>> {
  // A group of one kind (every group but an erasure's) is written as it came, its outcomes in order.
  if (records.every(isAssetEvent)) return writeEventGroup(tx, records, wallets);
  if (records.every(isFreeEvent)) return writeFreeEventGroup(tx, records);
  const events = records.filter(isAssetEvent);
  const free = records.filter(isFreeEvent);
  const eventOutcomes = await writeEventGroup(tx, events, wallets);
  const freeOutcomes = await writeFreeEventGroup(tx, free);
  let e = 0;
  let f = 0;
  return records.map(
    (r) => (isAssetEvent(r) ? eventOutcomes[e++] : freeOutcomes[f++]) as Outcome<WrittenRecord>,
  );
}
