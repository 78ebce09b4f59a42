const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a canonical textual UUID (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const MS_PER_DAY = 86_400_000;
// 0000-03-01 to 9999-12-31 in days from 1970-01-01: the years `toISOString` writes with four digits.
const FIRST_DAY = -719_468;
const LAST_DAY = 2_932_896;

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
const pad4 = (n: number) => (n < 10 ? `000${n}` : n < 100 ? `00${n}` : n < 1000 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` for the years 0000–9999, in integer arithmetic (the proleptic
 * Gregorian calendar's days to a date, as in H. Hinnant's `civil_from_days`). V8's
 * `toISOString` is a call into the runtime that cost ~0.5–1 µs here, and every event record
 * carries three times, which its leaf and its answer each write.
 */
function isoFromMillis(ms: number): string | undefined {
  const day = Math.floor(ms / MS_PER_DAY);
  if (!(day >= FIRST_DAY && day <= LAST_DAY)) return undefined;
  let t = ms - day * MS_PER_DAY;
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const msPart = t % 1000;
  t = (t - msPart) / 1000;
  const sec = t % 60;
  t = (t - sec) / 60;
  const min = t % 60;
  const hour = (t - min) / 60;
  return `${pad4(y)}-${pad2(m)}-${pad2(d)}T${pad2(hour)}:${pad2(min)}:${pad2(sec)}.${pad3(msPart)}Z`;
}

// The last time written: an ingested event's times are its group's one `now` (accepted, and
// declared unless the client says), each written by its row, by its answer and by its leaf.
let lastMs = Number.NaN;
let lastIso = "";

/** RFC 3339 UTC with milliseconds and `Z`. */
export function isoTime(value: Date | string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Rows carry Dates already: copying each (three per event, 150 per list page) only made garbage.
  const date = value instanceof Date ? value : new Date(value);
  const ms = date.getTime();
  if (ms === lastMs) return lastIso;
  // Outside 0000–9999 (or an invalid date, which throws) as the runtime writes it.
  const iso = isoFromMillis(ms) ?? date.toISOString();
  lastMs = ms;
  lastIso = iso;
  return iso;
}
