import { foundation } from "./001-foundation.js";
import { identity } from "./002-identity.js";
import { records } from "./003-records.js";
import { ledger } from "./004-ledger.js";
import { assetStatus } from "./005-status.js";
import { usage } from "./006-usage.js";
import { scitt } from "./007-scitt.js";
import { statusProbes } from "./008-status-probes.js";
import { identityExtra } from "./010-identity-extra.js";
import { derivedTrust } from "./011-derived-trust.js";
import { assetLookup } from "./012-asset-lookup.js";
import { blobContentRefs } from "./013-blob-content-refs.js";
import { eventPendingList } from "./014-event-pending-list.js";
import { eventPayload } from "./015-event-payload.js";
import { commitQueue } from "./016-commit-queue.js";
import { recordKeys } from "./017-record-keys.js";
import { tlogNodes } from "./018-tlog-nodes.js";
import { scittRegistrationPolicy } from "./019-scitt-registration-policy.js";
import { tlogCheckpoints } from "./020-tlog-checkpoints.js";
import { eventTrailCounts } from "./028-event-trail-counts.js";
import { statementLookup } from "./030-statement-lookup.js";
import { erasableValues } from "./041-erasable-values.js";
import { logPeriods } from "./042-log-periods.js";
import { logArchive } from "./043-log-archive.js";
import { revocationNotices } from "./048-revocation-notices.js";
import { logEntryByRecord } from "./049-log-entry-by-record.js";
import { canonicalSubject } from "./050-canonical-subject.js";
import { vindex } from "./051-vindex.js";
import { eventQueue } from "./052-event-queue.js";
import { vindexFilings } from "./053-vindex-filings.js";

/** Every schema change, in order. Never edit a released one: add a new file. */
export const migrations: ReadonlyArray<{ id: string; sql: string }> = [
  foundation,
  identity,
  records,
  ledger,
  assetStatus,
  usage,
  scitt,
  identityExtra,
  statusProbes,
  derivedTrust,
  assetLookup,
  blobContentRefs,
  eventPendingList,
  eventPayload,
  commitQueue,
  recordKeys,
  tlogNodes,
  scittRegistrationPolicy,
  tlogCheckpoints,
  eventTrailCounts,
  statementLookup,
  erasableValues,
  logPeriods,
  logArchive,
  revocationNotices,
  logEntryByRecord,
  canonicalSubject,
  vindex,
  eventQueue,
  vindexFilings,
];
