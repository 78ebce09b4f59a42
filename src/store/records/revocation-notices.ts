import type { Queryable } from "../drivers/db.js";

/** A processor registered to be told of revocations (its signing secret is read only by the notifier). */
export interface ProcessorRow {
  id: string;
  tenant_id: string;
  display_name: string;
  url: string;
  created_at: Date;
  created_by: string;
}

export interface NoticeRow {
  id: string;
  tenant_id: string;
  processor_id: string;
  processor_name: string;
  revocation: string;
  vcon: string;
  purposes: string[];
  revoked_at: Date;
  state: "pending" | "acknowledged" | "given_up";
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  acknowledged_at: Date | null;
  acknowledgement: string | null;
}

/** A notice due for delivery, with where and how to sign it. */
export interface DueNotice extends NoticeRow {
  url: string;
  /** The processor's webhook secret as stored: sealed (`src/keys/secret-box.ts`, bound to the processor's id). */
  sealed_secret: string;
}

const PROCESSOR_COLUMNS = "id, tenant_id, display_name, url, created_at, created_by";

export async function insertProcessor(
  db: Queryable,
  p: { id: string; tenantId: string; name: string; url: string; sealedSecret: string; by: string },
): Promise<ProcessorRow> {
  const [row] = await db.query<ProcessorRow>(
    `insert into consent_processors (id, tenant_id, display_name, url, signing_secret, created_by)
     values ($1, $2, $3, $4, $5, $6) returning ${PROCESSOR_COLUMNS}`,
    [p.id, p.tenantId, p.name, p.url, p.sealedSecret, p.by],
  );
  return row as ProcessorRow;
}

export function processorsOf(db: Queryable, tenantId: string): Promise<ProcessorRow[]> {
  return db.query<ProcessorRow>(
    `select ${PROCESSOR_COLUMNS} from consent_processors where tenant_id = $1 order by created_at, id`,
    [tenantId],
  );
}

/** Deletes a processor and its notices; false when the tenancy has no such processor. */
export async function deleteProcessor(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    "delete from consent_processors where tenant_id = $1 and id = $2 returning id",
    [tenantId, id],
  );
  return rows.length > 0;
}

/** Every processor, with how far it has been scanned (the notifier's work list). */
export function processorsToScan(
  db: Queryable,
): Promise<Array<{ id: string; tenant_id: string; scanned_seq: string }>> {
  return db.query(
    "select id, tenant_id, scanned_seq::text as scanned_seq from consent_processors order by id",
  );
}

/**
 * The tenancy's asset events after `afterSeq` whose operation names a consent revocation (as the
 * template, vcon-server's datatrails link or an event type write it), in log order; the caller
 * reads each with the lifecycle vocabulary to keep exactly the revocations.
 */
export function revocationCandidates(
  db: Queryable,
  tenantId: string,
  afterSeq: string,
  limit: number,
): Promise<
  Array<{
    seq: string;
    id: string;
    asset_id: string;
    event_attributes: Record<string, unknown>;
    timestamp_accepted: Date;
  }>
> {
  return db.query(
    `select seq::text as seq, id, asset_id, event_attributes, timestamp_accepted from asset_events
      where tenant_id = $1 and seq > $2::bigint
        and (event_attributes->>'vcon_operation' ilike 'vcon\\_consent\\_revoked%'
          or event_attributes->>'arc_event_type' ilike 'vcon\\_consent\\_revoked%'
          or event_attributes->>'arc_display_type' ilike 'vcon\\_consent\\_revoked%')
      order by seq limit $3`,
    [tenantId, afterSeq, limit],
  );
}

/** The tenancy's last asset event accepted before `before`: how far a scan may mark as read for good. */
export async function settledEventSeq(db: Queryable, tenantId: string, before: Date): Promise<string> {
  const [row] = await db.query<{ seq: string | null }>(
    "select max(seq)::text as seq from asset_events where tenant_id = $1 and timestamp_accepted < $2",
    [tenantId, before],
  );
  return row?.seq ?? "0";
}

/**
 * Queues one notice per revocation for the processor (a notice already queued is left as it is)
 * and moves its scan mark on (never back). Returns how many were queued now.
 */
export async function queueNotices(
  db: Queryable,
  processor: { id: string; tenant_id: string },
  notices: Array<{ id: string; revocation: string; vcon: string; purposes: string[]; revokedAt: Date }>,
  scannedSeq: string,
): Promise<number> {
  let queued = 0;
  for (const n of notices)
    queued += (
      await db.query(
        `insert into revocation_notices (id, tenant_id, processor_id, revocation, vcon, purposes, revoked_at)
       values ($1, $2, $3, $4, $5, $6::text[], $7) on conflict (processor_id, revocation) do nothing returning id`,
        [n.id, processor.tenant_id, processor.id, n.revocation, n.vcon, n.purposes, n.revokedAt],
      )
    ).length;
  await db.query(
    "update consent_processors set scanned_seq = greatest(scanned_seq, $2::bigint) where id = $1",
    [processor.id, scannedSeq],
  );
  return queued;
}

const NOTICE_COLUMNS = `n.id, n.tenant_id, n.processor_id, p.display_name as processor_name, n.revocation, n.vcon,
  n.purposes, n.revoked_at, n.state, n.attempts, n.next_attempt_at, n.last_error, n.created_at, n.acknowledged_at, n.acknowledgement`;

/**
 * Claims the notices whose next attempt is due, oldest first: each is put `leaseMs` ahead, so
 * that another process's notifier skips it while this one posts it (an attempt that crashes is
 * tried again when the lease runs out).
 */
export function claimDueNotices(db: Queryable, limit: number, leaseMs: number): Promise<DueNotice[]> {
  return db.query<DueNotice>(
    `with due as (
       select id from revocation_notices
        where state = 'pending' and next_attempt_at <= now()
        order by next_attempt_at, created_at limit $1
        for update skip locked
     ), claimed as (
       update revocation_notices n set next_attempt_at = now() + ($2::bigint * interval '1 millisecond')
         from due where n.id = due.id
       returning n.*
     )
     select n.id, n.tenant_id, n.processor_id, p.display_name as processor_name, n.revocation, n.vcon,
            n.purposes, n.revoked_at, n.state, n.attempts, n.next_attempt_at, n.last_error, n.created_at,
            n.acknowledged_at, n.acknowledgement, p.url, p.signing_secret as sealed_secret
       from claimed n join consent_processors p on p.id = n.processor_id
      order by n.created_at`,
    [limit, leaseMs],
  );
}

/** The processor answered: the notice is acknowledged, by the record that says so. */
export async function acknowledgeNotice(db: Queryable, id: string, acknowledgement: string): Promise<void> {
  await db.query(
    `update revocation_notices set state = 'acknowledged', attempts = attempts + 1, acknowledged_at = now(),
       acknowledgement = $2, last_error = null where id = $1`,
    [id, acknowledgement],
  );
}

/** A failed attempt: tried again after `delayMs`, or given up (still unacknowledged, and listed so). */
export async function failNotice(
  db: Queryable,
  id: string,
  error: string,
  delayMs: number | undefined,
): Promise<void> {
  await db.query(
    `update revocation_notices set attempts = attempts + 1, last_error = $2,
       state = case when $3::bigint is null then 'given_up' else state end,
       next_attempt_at = case when $3::bigint is null then next_attempt_at
                              else now() + ($3::bigint * interval '1 millisecond') end
     where id = $1`,
    [id, error.slice(0, 1000), delayMs ?? null],
  );
}

/** The tenancy's notices, of one vCon or all, optionally only those not acknowledged. */
export function noticesOf(
  db: Queryable,
  tenantId: string,
  filter: { vcon?: string | undefined; unacknowledged?: boolean | undefined },
): Promise<NoticeRow[]> {
  return db.query<NoticeRow>(
    `select ${NOTICE_COLUMNS}
       from revocation_notices n join consent_processors p on p.id = n.processor_id
      where n.tenant_id = $1 and ($2::text is null or n.vcon = $2)
        and (not $3::boolean or n.state <> 'acknowledged')
      order by n.created_at, p.display_name, n.id limit 1000`,
    [tenantId, filter.vcon ?? null, filter.unacknowledged ?? false],
  );
}
