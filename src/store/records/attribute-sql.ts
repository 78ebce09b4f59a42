import type { AttributeFilter } from "../../core/filters/index.js";
import type { ListAttributeFilter } from "../../core/filters/list-spec.js";
import { canonicalSubject, isVconSubject, subjectSpellings } from "../../formats/vcon/subject.js";
import { Where } from "../query/sql.js";

const WHOLE = /^(0|-?[1-9][0-9]*)$/;

/** A table whose rows a list filters by attribute: its jsonb column for each query prefix, its tenancy column. */
export interface AttributeTable {
  table: string;
  columns: Readonly<Record<string, string>>;
  tenantColumn: string;
  /** Columns whose `subject` has an index of the subjects stored in another spelling (`legacySubjectSql`). */
  canonicalSubject?: readonly string[];
}

/**
 * The predicate of migration 050's index over `assets.attributes`: a subject not in lower case,
 * which a record written before vCon subjects were made canonical may hold. The index holds only
 * those rows (none that the service writes now costs it an entry); a query names the predicate
 * as it is written here for the planner to use it.
 */
function legacySubjectSql(column: string): string {
  return `(${column} ->> 'subject') <> lower(${column} ->> 'subject')`;
}

/**
 * A subject filter by string values over a column with migration 050's index: each value's
 * canonical spelling as stored (the attributes' GIN index, as any value), or a vCon subject
 * stored in another spelling (the index of those, by its lower case). Every spelling of a vCon
 * subject a record may hold is found (`subjectSpellings`'s, and the uuid's cases mixed), with one
 * value per subject in the GIN look-up where there were four (issue 59); other subjects match
 * exactly, strings only, as containment does.
 */
function addSubjectFilter(w: Where, values: readonly string[], column: string): void {
  const canonical = [...new Set(values.map(canonicalSubject))];
  const vcons = canonical.filter(isVconSubject);
  const stored =
    canonical.length > 1
      ? `${column} @@ ${w.p(anyOfPath("subject", canonical))}::jsonpath`
      : `${column} @> ${w.p(JSON.stringify({ subject: canonical[0] }))}::jsonb`;
  // Several values, or two indexes: a scan the planner may not price under a walk of the table
  // (`fewMatches`).
  if (canonical.length > 1 || vcons.length > 0) w.indexOnly = true;
  if (vcons.length === 0) {
    w.and(stored);
    return;
  }
  // A stored subject whose lower case is a canonical vCon subject is that subject in other cases:
  // the canonical spelling is ASCII (`vcon://`, hex, hyphens), and no other character's lower
  // case is one of those (the only non-ASCII letters lower-cased into ASCII are U+0130 and U+212A,
  // to `i` and `k`; every code point is checked on both engines by canonical-subject-form.test.ts).
  // A regular expression saying so again cost each look-up ~0.6 ms of planning,
  // ten times the look-up itself (issue 59, pg_stat_statements under the conserver scenario).
  const respelled = `lower(${column} ->> 'subject') = any(${w.p(vcons)}::text[]) and ${legacySubjectSql(column)}`;
  w.and(`${stored} or (${respelled})`);
}

/**
 * Attributes with a btree index of their own over their text, by column (migration 015):
 * template 0.3.0's payload hash, the key of every conserver look-up. Filters on them with string
 * values are written in the form that index serves.
 */
const KEYED_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  event_attributes: ["payload"],
};

/** What a match filter's values stand for in SQL: the spellings asked for, and each as it may be stored. */
interface FilterValues {
  /** The filter's own values and name when worked out, so a filter changed since is worked out again. */
  source: readonly string[];
  count: number;
  name: string;
  given: string[];
  values: Array<string | number>;
  /** `anyOfPath` of `values`, once made. */
  path?: string;
}

/**
 * Each filter's values, worked out once: a list adds its value filters twice (the list's own
 * clause and the index probe, `addListFilters`), and a conserver's grouped look-up gives up to
 * 500 subjects, four spellings each, so the spellings and their jsonpath were made twice per
 * look-up (issue 59: a share of the service's CPU per new vCon).
 */
const worked = new WeakMap<AttributeFilter, FilterValues>();

function valuesOf(f: Extract<AttributeFilter, { kind: "match" }>): FilterValues {
  const known = worked.get(f);
  if (known && known.source === f.values && known.count === f.values.length && known.name === f.name)
    return known;
  // `=7` finds 7 and "7"; a vCon subject, every spelling a record written before subjects were
  // made canonical may hold (a uuid is the same in either case).
  const given = f.name === "subject" ? [...new Set(f.values.flatMap(subjectSpellings))] : f.values;
  const values = given.flatMap((v): Array<string | number> => {
    const n = WHOLE.test(v) ? Number(v) : Number.NaN;
    return Number.isSafeInteger(n) ? [v, n] : [v];
  });
  const out = { source: f.values, count: f.values.length, name: f.name, given, values };
  worked.set(f, out);
  return out;
}

function pathOf(f: AttributeFilter, values: Array<string | number>): string {
  const known = worked.get(f);
  if (known?.values !== values) return anyOfPath(f.name, values);
  known.path ??= anyOfPath(f.name, values);
  return known.path;
}

/**
 * Adds a dotted query filter over the jsonb column of its prefix. Equality uses
 * containment (`@>`), which the GIN (jsonb_path_ops) indexes serve, so filtered lists
 * stay index-backed at any size. It matches string values, and whole numbers (the one other
 * scalar an attribute may hold) written in their shortest form.
 *
 * A key given several values is one jsonpath test (`anyOfPath`), which the same indexes serve.
 *
 * A keyed attribute (`KEYED_ATTRIBUTES`) with string values is compared as text through its own
 * btree, and only a string value matches, as with containment.
 *
 * `indexed: false` writes containment as `jsonb_contains(…)`, the same test in a form no index
 * serves: for rows already found through another index (one asset's events), so that a plan
 * made without the values cannot choose the value index instead.
 *
 * `subjectIndexed`: the column's `subject` has migration 050's index of subjects stored in
 * another spelling; a subject filter with string values is then `addSubjectFilter`'s.
 */
export function addAttributeFilter(
  w: Where,
  f: AttributeFilter,
  column: string,
  indexed = true,
  subjectIndexed = false,
): void {
  const text = (name: string) => `coalesce(${column}->>${w.p(name)}, '')`;
  if (f.kind === "missing") {
    w.and(`${text(f.name)} = ''`);
    return;
  }
  const byCanonicalSubject =
    indexed && subjectIndexed && f.name === "subject" && !f.present && f.values.length > 0;
  if (byCanonicalSubject && !f.values.some((v) => WHOLE.test(v))) {
    addSubjectFilter(w, f.values, column);
    return;
  }
  const { given, values } = valuesOf(f);
  if (
    indexed &&
    !f.present &&
    KEYED_ATTRIBUTES[column]?.includes(f.name) &&
    values.every((v) => typeof v === "string")
  ) {
    // The name is one of ours, not the caller's, so it is written into the SQL as the index's
    // own expression is. A string value of that text is what containment would match.
    if (given.length > 1) w.indexOnly = true;
    w.and(
      `(${column} ->> '${f.name}') = any(${w.p(values)}::text[]) and jsonb_typeof(${column} -> '${f.name}') = 'string'`,
    );
    return;
  }
  const anyOf = indexed && given.length > 1;
  if (anyOf) w.indexOnly = true;
  const alternatives = anyOf
    ? [`${column} @@ ${w.p(pathOf(f, values))}::jsonpath`]
    : values.map((v) => {
        const value = `${w.p(JSON.stringify({ [f.name]: v }))}::jsonb`;
        return indexed ? `${column} @> ${value}` : `jsonb_contains(${column}, ${value})`;
      });
  if (f.present) alternatives.push(`${text(f.name)} <> ''`);
  w.and(alternatives.join(" or "));
}

/**
 * `addAttributeFilter`, reading `f.name` as missing on the rows of the `hidden` tenancies: there
 * the filter tests the column with that attribute removed (so a value never matches, and
 * "absent" always does), in the form no index serves.
 */
export function addHiddenAwareFilter(
  w: Where,
  f: AttributeFilter,
  column: string,
  indexed: boolean,
  hidden: string[],
  tenantColumn: string,
  subjectIndexed = false,
): void {
  const seen = new Where(w.params);
  const tenancies = seen.p(hidden);
  addAttributeFilter(seen, f, column, indexed, subjectIndexed);
  const masked = new Where(seen.params);
  addAttributeFilter(masked, f, `(${column} - ${masked.p(f.name)}::text)`, false);
  w.params.push(...masked.params.slice(w.params.length));
  w.and(
    `(${tenantColumn} <> all(${tenancies}::uuid[]) and ${seen.sql}) or (${tenantColumn} = any(${tenancies}::uuid[]) and ${masked.sql})`,
  );
}

/**
 * Adds a list's attribute filters (each over the jsonb column its prefix names in `table`), a
 * filter with `hiddenIn` tenancies reading its attribute as missing there. Returns the filters
 * that ask for values (not presence) alone, as their own WHERE, when there are any: only the
 * attribute indexes can serve it, which is what `fewMatches` needs. That probe may find rows
 * where the value is hidden; the list's own clause never keeps them.
 */
export function addListFilters(
  w: Where,
  filters: readonly ListAttributeFilter[],
  table: AttributeTable,
  indexed = true,
): Where | undefined {
  const column = (f: AttributeFilter) => {
    const c = table.columns[f.prefix];
    if (c === undefined) throw new RangeError(`${table.table} has no attribute column for ${f.prefix}`);
    return c;
  };
  const subjectIndexed = (f: AttributeFilter) => table.canonicalSubject?.includes(column(f)) ?? false;
  for (const f of filters) {
    if (f.hiddenIn?.length)
      addHiddenAwareFilter(w, f, column(f), indexed, [...f.hiddenIn], table.tenantColumn, subjectIndexed(f));
    else addAttributeFilter(w, f, column(f), indexed, subjectIndexed(f));
  }
  const byValue = filters.filter((f) => f.kind === "match" && f.values.length > 0 && !f.present);
  if (byValue.length === 0) return undefined;
  const probe = new Where();
  for (const f of byValue) addAttributeFilter(probe, f, column(f), true, subjectIndexed(f));
  return probe;
}

/**
 * A key given several values, as one jsonpath test: the GIN index answers it in one scan, where
 * an OR of containments is one scan per value (each reading the index's pending list) and an
 * estimate per value that, added up, can make PostgreSQL walk the whole table instead. Strict,
 * so that it matches exactly what containment matches: an array, object or missing value is
 * unknown (no match) rather than searched into. JSON's string escapes are jsonpath's.
 */
export function anyOfPath(name: string, values: Array<string | number>): string {
  const key = `$.${JSON.stringify(name)}`;
  return `strict ${values.map((v) => `${key} == ${JSON.stringify(v)}`).join(" || ")}`;
}
