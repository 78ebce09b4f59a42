/** Seconds from an int64 decimal string of a stored policy; undefined unless a positive integer. */
export function policySeconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,18}$/.test(value)) return undefined;
  const seconds = Number(value);
  return seconds > 0 ? seconds : undefined;
}
