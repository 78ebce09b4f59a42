/**
 * The breach workflow as state derived from the log (docs/vcon-lifecycle.md, §7): the lifecycle
 * draft's breach events (`vcon_breach_detected`, `vcon_breach_investigated`,
 * `vcon_subject_notified`, `vcon_regulator_notified`, `vcon_remediated`) grouped per breach, and
 * the deadlines a regulator sets measured from the detection: GDPR Art. 33 gives 72 hours to
 * notify the supervisory authority; Art. 34 asks the data subjects be told "without undue delay"
 * (no hours: set one if your regulator does). Pure: the same records and the same clock make the
 * same answer anywhere.
 */
import type { LifecycleRecord } from "../../formats/lifecycle/consent.js";
import { LIFECYCLE_ATTRIBUTES, recordAttributes } from "../../formats/lifecycle/vocabulary.js";

type Step = "detected" | "investigated" | "subject_notified" | "regulator_notified" | "remediated";

const STEP_OF: Record<string, Step> = {
  vcon_breach_detected: "detected",
  vcon_breach_investigated: "investigated",
  vcon_subject_notified: "subject_notified",
  vcon_regulator_notified: "regulator_notified",
  vcon_remediated: "remediated",
};

/** Hours from detection within which each notification is due; undefined: no deadline. */
export interface BreachDeadlines {
  regulatorHours?: number | undefined;
  subjectHours?: number | undefined;
}

/** GDPR Art. 33(1): the supervisory authority within 72 hours of becoming aware. */
export const DEFAULT_BREACH_DEADLINES: BreachDeadlines = { regulatorHours: 72 };

interface StepRecord {
  identity: string;
  at: string;
}

interface DeadlineState {
  /** Who must be told. */
  party: "regulator" | "subject";
  hours: number;
  /** When it is due (RFC 3339), from the detection. */
  due: string;
  /**
   * met: notified in time; missed: notified late, or not notified and the deadline has passed;
   * open: not notified yet and not due yet.
   */
  state: "met" | "missed" | "open";
  /** Why, in words. */
  detail: string;
}

export interface BreachState {
  /** The breach's `breach_id`, "" when its records name none. */
  breach: string;
  /** The furthest step recorded, in the draft's order (detected, investigated, subject and regulator notified, remediated). */
  stage: Step;
  /** The first record of each step. */
  steps: Partial<Record<Step, StepRecord>>;
  /** Every breach record, in order. */
  records: StepRecord[];
  deadlines: DeadlineState[];
  /** Findings: missed deadlines, notifications or remediation with no detection recorded. */
  findings: string[];
}

const ORDER: Step[] = ["detected", "investigated", "subject_notified", "regulator_notified", "remediated"];
const HOUR_MS = 3_600_000;

/** The breach step a record is, or undefined (a per-purpose suffix is not used by breach events). */
function stepOf(r: LifecycleRecord): Step | undefined {
  const m = r.lifecycle.meaning;
  return m.known ? STEP_OF[m.operation.name] : undefined;
}

const iso = (ms: number) => (Number.isNaN(ms) ? "" : new Date(ms).toISOString());

function deadline(
  party: "regulator" | "subject",
  hours: number,
  detectedMs: number,
  notified: LifecycleRecord | undefined,
  nowMs: number,
): DeadlineState {
  const dueMs = detectedMs + hours * HOUR_MS;
  const due = iso(dueMs);
  const who = party === "regulator" ? "the regulator" : "the data subject(s)";
  if (notified) {
    const late = notified.acceptedMs > dueMs;
    const after = ((notified.acceptedMs - detectedMs) / HOUR_MS).toFixed(1);
    return {
      party,
      hours,
      due,
      state: late ? "missed" : "met",
      detail: `${who} notified ${after} h after detection${late ? `, past the ${hours} h deadline (${due})` : ` (within ${hours} h)`}`,
    };
  }
  return nowMs > dueMs
    ? {
        party,
        hours,
        due,
        state: "missed",
        detail: `${who} not notified, and the ${hours} h deadline passed at ${due}`,
      }
    : { party, hours, due, state: "open", detail: `${who} to be notified by ${due}` };
}

/**
 * Each breach the records tell of, by `breach_id` (records naming none are one breach, ""), with
 * its steps, its deadlines judged at `nowMs`, and what is wrong. `ordered` is `lifecycleOrder`'s.
 */
export function breachStates(
  ordered: readonly LifecycleRecord[],
  nowMs: number,
  deadlines: BreachDeadlines = DEFAULT_BREACH_DEADLINES,
): BreachState[] {
  const groups = new Map<string, Array<{ r: LifecycleRecord; step: Step }>>();
  for (const r of ordered) {
    const step = stepOf(r);
    if (!step) continue;
    const id = recordAttributes(r.record)[LIFECYCLE_ATTRIBUTES.breachId];
    const key = typeof id === "string" ? id : "";
    (groups.get(key) ?? groups.set(key, []).get(key))?.push({ r, step });
  }
  return [...groups].map(([breach, items]) => {
    const first = new Map<Step, LifecycleRecord>();
    for (const { r, step } of items) if (!first.has(step)) first.set(step, r);
    const steps: BreachState["steps"] = {};
    for (const [step, r] of first) steps[step] = { identity: r.identity, at: iso(r.acceptedMs) };
    const stage = ORDER.filter((s) => first.has(s)).at(-1) as Step;
    const findings: string[] = [];
    const out: DeadlineState[] = [];
    const detected = first.get("detected");
    if (!detected) findings.push("breach records with no detection recorded: no deadline can be measured");
    else {
      for (const [party, hours, step] of [
        ["regulator", deadlines.regulatorHours, "regulator_notified"],
        ["subject", deadlines.subjectHours, "subject_notified"],
      ] as const) {
        if (hours === undefined) continue;
        const d = deadline(party, hours, detected.acceptedMs, first.get(step), nowMs);
        out.push(d);
        if (d.state === "missed") findings.push(`DEADLINE MISSED: ${d.detail}`);
      }
      for (const step of ORDER.slice(1)) {
        const r = first.get(step);
        if (r && r.acceptedMs < detected.acceptedMs)
          findings.push(`${step.replace("_", " ")} recorded before the detection (${r.identity})`);
      }
    }
    return {
      breach,
      stage,
      steps,
      records: items.map(({ r }) => ({ identity: r.identity, at: iso(r.acceptedMs) })),
      deadlines: out,
      findings,
    };
  });
}
