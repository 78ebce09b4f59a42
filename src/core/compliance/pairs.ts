import type { TimedEvent } from "./timeline.js";

/** An opening event and, when there is one, the closing event paired with it. */
export interface EventPair {
  /** The shared `arc_correlation_value`; undefined when the opening event has none. */
  correlation: string | undefined;
  opened: number;
  closed: number | undefined;
}

/**
 * Pairs each opening event with a closing event of the same correlation value.
 * The interface says a value is unique per pair; should a value be reused anyway,
 * openings and closings of that value are matched first-with-first in time order,
 * so a reopened item needs its own closing event. An opening event without a
 * correlation value can never be closed.
 */
export function pairEvents(
  timeline: readonly TimedEvent[],
  openType: string,
  closeType: string,
): EventPair[] {
  const closings = new Map<string, number[]>();
  for (const event of timeline) {
    if (event.type !== closeType || event.correlation === undefined) continue;
    const queue = closings.get(event.correlation) ?? [];
    queue.push(event.time);
    closings.set(event.correlation, queue);
  }
  const pairs: EventPair[] = [];
  for (const event of timeline) {
    if (event.type !== openType) continue;
    const queue = event.correlation === undefined ? undefined : closings.get(event.correlation);
    pairs.push({ correlation: event.correlation, opened: event.time, closed: queue?.shift() });
  }
  return pairs;
}

/** Seconds from opening to closing; a closing declared before its opening counts as zero. */
export function pairSeconds(pair: EventPair, closed: number): number {
  return Math.max(0, (closed - pair.opened) / 1000);
}

/** How a pair is named in a reason: its correlation value, quoted. */
export function pairName(pair: EventPair): string {
  return pair.correlation === undefined ? "(no arc_correlation_value)" : `'${pair.correlation}'`;
}
