import { expect, it } from "vitest";
import { evaluateCompliance } from "../../../../src/core/compliance/evaluate.js";
import type {
  ComplianceEvent,
  CompliancePolicyInput,
  ComplianceType,
} from "../../../../src/core/compliance/types.js";

/** Every timeline in these tests counts hours from this instant. */
const T0 = Date.parse("2024-03-01T00:00:00.000Z");
const HOUR = 3_600_000;

/** The instant `hours` after T0. */
export const hoursAfter = (hours: number) => new Date(T0 + hours * HOUR);

/** An event of `type` declared `hours` after T0, optionally with a correlation value. */
export function event(type: string, hours: number, correlation?: string): ComplianceEvent {
  const event_attributes: Record<string, unknown> = { arc_display_type: type };
  if (correlation !== undefined) event_attributes.arc_correlation_value = correlation;
  return { timestamp_declared: hoursAfter(hours).toISOString(), event_attributes };
}

/** A policy of `type` with every field empty but those given. */
export function policy(
  type: ComplianceType,
  fields: Partial<CompliancePolicyInput> = {},
): CompliancePolicyInput {
  return {
    compliance_type: type,
    display_name: "test policy",
    description: "",
    asset_filter: [],
    event_display_type: "",
    closing_event_display_type: "",
    time_period_seconds: "0",
    dynamic_window: "0",
    dynamic_variability: 0,
    richness_assertions: [],
    ...fields,
  };
}

/** A timeline to judge: its events, the hour it is judged at, and the verdict expected. */
export interface TimelineCase {
  name: string;
  events: ComplianceEvent[];
  at: number;
  compliant: boolean;
  reason: RegExp;
}

/** One test per case: `judged` over the case's events at its hour, on an asset without attributes. */
export function judgesEachCase(judged: CompliancePolicyInput, cases: TimelineCase[]): void {
  it.each(cases)("$name", ({ events, at, compliant, reason }) => {
    const result = evaluateCompliance(judged, { events, assetAttributes: {}, at: hoursAfter(at) });
    expect(result.compliant).toBe(compliant);
    expect(result.reason).toMatch(reason);
  });
}
