/**
 * The assets' attribute index is searched for every asset look-up by attribute (the conserver
 * finds each vCon's asset by `attributes.subject`), under a steady stream of new assets. With
 * GIN's fast update, new entries wait in a pending list that every search reads in full and
 * that the planner prices in: with 50,000 entries pending, a look-up that matches nothing took
 * 2.4 ms instead of 0.09 ms, and with more the planner walked the whole table backwards by
 * `seq` instead (20 ms at 100,000 assets, growing with the table). Written straight into the
 * index, a look-up stays a sub-millisecond probe; an insert costs ~4 µs more.
 */
export const assetLookup = {
  id: "012-asset-lookup",
  sql: `alter index assets_attributes set (fastupdate = off);`,
};
