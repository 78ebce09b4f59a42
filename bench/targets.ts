/** The design targets of the performance issues, compared with the measured numbers. */
export const TARGETS = {
  /** core: MMR append, leaves/s. */
  mmrAppend: 50_000,
  /** ingest end to end, events/s, per engine. */
  ingestPostgres: 2_500,
  ingestPglite: 1_500,
  /** p99 POST→COMMITTED at half the ingest target, ms. */
  commitP99Ms: 1_000,
  /** list p99 per page over 1,000,000 events on PostgreSQL, ms. */
  listPageP99Ms: 50,
  /** statements signed/verified as a fraction of raw ES256. */
  statementsOfEs256: 0.8,
  /** conserver chain, new vCons/s, per engine (issue 35: twice the first target on PostgreSQL + Redis). */
  conserverPostgres: 3_000,
  conserverPglite: 2_000,
  /** receipts, repeat (cached) fetches/s at 16 in flight, each profile, and their p99, ms. */
  receiptsCached: 5_000,
  receiptsP99Ms: 10,
} as const;
