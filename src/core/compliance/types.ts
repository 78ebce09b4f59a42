/** The policy kinds of the interface; `COMPLIANCE_TYPE_UNDEFINED` is never accepted. */
export const COMPLIANCE_TYPES = [
  "COMPLIANCE_SINCE",
  "COMPLIANCE_CURRENT_OUTSTANDING",
  "COMPLIANCE_PERIOD_OUTSTANDING",
  "COMPLIANCE_DYNAMIC_TOLERANCE",
  "COMPLIANCE_RICHNESS",
] as const;

export type ComplianceType = (typeof COMPLIANCE_TYPES)[number];

/** One `{or: [...]}` clause of an asset filter or of richness assertions. */
export interface OrClause {
  or: string[];
}

/** A stored compliance policy, every field present (unused ones empty, `"0"` or `0`). */
interface CompliancePolicy {
  identity: string;
  compliance_type: ComplianceType;
  display_name: string;
  description: string;
  asset_filter: OrClause[];
  event_display_type: string;
  closing_event_display_type: string;
  /** int64 seconds, carried as a decimal string like the interface. */
  time_period_seconds: string;
  /** int64 seconds into the past, carried as a decimal string. */
  dynamic_window: string;
  /** Number of population standard deviations above the mean. */
  dynamic_variability: number;
  richness_assertions: OrClause[];
}

/** A validated create request: the policy without its identity. */
export type CompliancePolicyInput = Omit<CompliancePolicy, "identity">;

/** The part of an asset event that compliance looks at. */
export interface ComplianceEvent {
  timestamp_declared: string;
  event_attributes: Record<string, unknown>;
}

/** What a policy is evaluated against: one asset's events and attributes at a point in time. */
export interface ComplianceContext {
  events: ComplianceEvent[];
  assetAttributes: Record<string, unknown>;
  at: Date;
}

/** The outcome of one policy for one asset; `reason` says why in words. */
export interface ComplianceResult {
  compliant: boolean;
  reason: string;
}
