/**
 * A maker of the vCon `vcon://v`'s lifecycle records as the API returns them, numbered in the
 * order made (identity and log position alike), accepted at `acceptedAt` (ms since the epoch).
 */
export function lifecycleRecords() {
  let n = 0;
  return (op: string, acceptedAt: number, attributes: Record<string, string> = {}) => {
    n++;
    return {
      identity: `assets/a/events/${n}`,
      event_attributes: { vcon_operation: op, subject: "vcon://v", ...attributes },
      timestamp_accepted: new Date(acceptedAt).toISOString(),
      merklelog_entry: { commit: { index: String(n), idtimestamp: "01" } },
    };
  };
}

/** Consent records accepted at `minute` past 2026-01-01T00:00Z, for `purpose` where given. */
export function consentRecords() {
  const record = lifecycleRecords();
  return (op: string, minute: number, purpose?: string, extra: Record<string, string> = {}) =>
    record(op, Date.UTC(2026, 0, 1, 0, minute), {
      ...(purpose === undefined ? {} : { consent_purpose: purpose }),
      ...extra,
    });
}
