const FORMAT: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZoneName: "short",
};

/** An RFC 3339 time as people read it, in the reader's time zone; anything unparsable as given. */
export function readableDate(iso: string, locale?: string): string {
  const t = Date.parse(iso);
  if (!iso || Number.isNaN(t)) return iso || "(no time)";
  return new Intl.DateTimeFormat(locale, FORMAT).format(new Date(t));
}
