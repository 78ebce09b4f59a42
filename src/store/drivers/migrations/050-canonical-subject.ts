/**
 * Assets whose `subject` is not in lower case, by its lower case: the vCon subjects a record
 * written before subjects were made canonical may spell otherwise (`vcon://<UPPER>`, `VCON://`).
 * Issue 60 made a conserver's look-up of a vCon's asset find those by asking the attributes' GIN
 * index for four spellings of each subject: a grouped look-up of 45 subjects then cost PostgreSQL
 * 4.4 ms of CPU where one spelling cost 0.8. With this index the GIN index is asked for the one
 * spelling the service writes, and this one for the others (issue 59). Partial, so that an asset
 * written now (its subject in lower case) costs it no entry: an index of every subject's
 * canonical spelling answered a look-up in 0.35 ms but cost each new asset ~10 µs, more than the
 * look-ups saved. The predicate is `legacySubjectSql("attributes")` (attribute-sql.ts), written
 * out: a released migration never changes.
 */
export const canonicalSubject = {
  id: "050-canonical-subject",
  sql: `create index assets_respelled_subject on assets ((lower(attributes ->> 'subject'))) where (attributes ->> 'subject') <> lower(attributes ->> 'subject');`,
};
