import type { Logger } from "pino";
import type { SignedLogState, SignedStates } from "./signed-state.js";

/** What the database shows of a log's signing: its newest seal and its open period. */
export interface DatabaseSigning {
  seal: { mmr_size: number; peaks: readonly string[] } | undefined;
  openPeriod: { period: number; start_size: number };
}

type Period = SignedLogState["open_period"];

const samePeriod = (a: Period, b: Period) =>
  (a?.period ?? 0) === (b?.period ?? 0) && (a?.start_size ?? 0) === (b?.start_size ?? 0);

/** Whether the database's newest seal is the one `s` signed (none for no state). */
function sealIs(db: DatabaseSigning, s: SignedLogState | undefined): boolean {
  if (!s) return db.seal === undefined;
  return (
    db.seal !== undefined &&
    db.seal.mmr_size === s.mmr_size &&
    db.seal.peaks.length === s.peaks.length &&
    db.seal.peaks.every((p, i) => p === s.peaks[i])
  );
}

/**
 * Whether the transaction that wrote a pending state committed, read from the database it signed
 * for. A pending state found by a process that did not write it was left by one that stopped
 * between its two writes: `committed` when the database holds its seal (and the period it opened,
 * when it opened one), `not committed` when the database holds exactly the state before it, and
 * `unknown` otherwise (the guard's comparison then judges, a restore being one answer). Read
 * wrong, a signing that never committed would become the "state before" of the next one, and a
 * second stop in the same place would then show a log whose seals seem deleted.
 */
export function pendingOutcome(
  s: SignedLogState,
  db: DatabaseSigning,
): "committed" | "not committed" | "unknown" {
  const opensPeriod = s.open_period !== undefined && !samePeriod(s.open_period, s.before?.open_period);
  const periodIsNew = opensPeriod && samePeriod(s.open_period, db.openPeriod);
  if (sealIs(db, s) && (!opensPeriod || periodIsNew)) return "committed";
  if (sealIs(db, s.before) && !periodIsNew) return "not committed";
  return "unknown";
}

/** A state as known committed: without its pending mark and the state before it. */
export function settled(s: SignedLogState): SignedLogState {
  const { pending: _pending, before: _before, ...rest } = s;
  return rest;
}

/**
 * The log's signed state, a pending one left by a stopped process resolved (`pendingOutcome`)
 * and kept so: settled when its transaction committed, taken back to the state before it when it
 * did not, as it is when the database cannot tell. `ours`: a signing of this process is under way,
 * whose pending state is its own.
 */
export async function resolvePending(
  states: Pick<SignedStates, "read" | "write" | "remove">,
  log: Logger,
  tenantId: string,
  database: () => Promise<DatabaseSigning>,
  ours = false,
): Promise<SignedLogState | undefined> {
  const s = await states.read(tenantId);
  if (!s?.pending || ours) return s;
  const outcome = pendingOutcome(s, await database());
  if (outcome === "unknown") return s;
  const now = outcome === "committed" ? settled(s) : s.before;
  if (now) await states.write(now);
  else await states.remove(tenantId);
  log.warn(
    { log: `tenant/${tenantId}`, pending_mmr_size: s.mmr_size, outcome },
    outcome === "committed"
      ? "a signing left pending by a stopped process had committed: its signed state is settled"
      : "a signing left pending by a stopped process never committed: its signed state is taken back",
  );
  return now;
}
