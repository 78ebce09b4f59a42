/**
 * An asset's `subject` in its one spelling (`canonicalSubject`: a vCon subject with its uuid in
 * lower case, any other subject as it is), indexed: the key of every conserver look-up of a
 * vCon's asset. Issue 60 made those look-ups find records written before subjects were made
 * canonical by asking the attributes' GIN index for four spellings of each subject; a grouped
 * look-up of 45 subjects then cost PostgreSQL 4.4 ms of CPU where one spelling cost 0.8 (the
 * jsonpath's alternatives are tested on every candidate) and this index 0.35, for ~10 µs more
 * per asset written (issue 59). The expression is `canonicalSubjectSql("attributes")`
 * (attribute-sql.ts), written out: a released migration never changes.
 */
export const canonicalSubject = {
  id: "050-canonical-subject",
  sql: `create index assets_canonical_subject on assets ((case when (attributes ->> 'subject') ~* '^vcon://[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then lower(attributes ->> 'subject') else (attributes ->> 'subject') end));`,
};
