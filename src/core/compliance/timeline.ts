import type { ComplianceEvent } from "./types.js";

/** An event reduced to what the evaluators compare: when, what type, which pair. */
export interface TimedEvent {
  /** Milliseconds since the epoch of `timestamp_declared`. */
  time: number;
  /** `event_attributes.arc_display_type`, or "" when absent or not a string. */
  type: string;
  /** `event_attributes.arc_correlation_value` when a non-empty string; pairs match on it exactly. */
  correlation: string | undefined;
}

const stringAttribute = (attributes: Record<string, unknown>, key: string): string | undefined => {
  const value = attributes[key];
  return typeof value === "string" && value !== "" ? value : undefined;
};

/**
 * The events declared at or before `atMs`, oldest first. An event whose
 * `timestamp_declared` does not parse has no place on the timeline and is left out.
 */
export function timelineUpTo(events: readonly ComplianceEvent[], atMs: number): TimedEvent[] {
  const timed: TimedEvent[] = [];
  for (const event of events) {
    const time = Date.parse(event.timestamp_declared);
    if (!Number.isFinite(time) || time > atMs) continue;
    const attributes = event.event_attributes ?? {};
    timed.push({
      time,
      type: stringAttribute(attributes, "arc_display_type") ?? "",
      correlation: stringAttribute(attributes, "arc_correlation_value"),
    });
  }
  return timed.sort((a, b) => a.time - b.time);
}
