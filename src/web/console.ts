// Entry point of the auditors' console bundle: sign in with client credentials (the token is
// kept in this page's memory only), pick an asset or a vCon from the table or find one, read its
// trail with each receipt verified here by the core verifier, its compliance, export its
// evidence bundle, and watch the tenancy's log. The address's fragment names what is shown.

import { LookupError, type PublicApi } from "../lookup/public-api.js";
import { keyFingerprint, noTrust, pinsSomething, type TrustRoots } from "../verify/index.js";
import {
  assetPage,
  callerApi,
  findStatements,
  parseTarget,
  type Session,
  type StatementField,
  signIn,
} from "./console-data.js";
import type { ExportPage } from "./console-export.js";
import { isBareNumber, parseLogPlace, placeWords, recordAtPlace } from "./console-find.js";
import { type ConsoleLink, consoleFragment, parseConsoleLink } from "./console-link.js";
import { logPanelView } from "./console-log-panel.js";
import { statementsTable } from "./console-statements.js";
import { AssetTable } from "./console-table.js";
import {
  heldReceipts,
  loadFreeEvent,
  loadTrail,
  type Trail,
  trailContext,
  unjudged,
} from "./console-trail.js";
import { checkInWorker } from "./console-trail-check.js";
import { TrailScreen } from "./console-trail-view.js";
import { NO_TRUST_INPUT, type TrustInput, trustSummary } from "./console-trust.js";
import { wireTrustPanel } from "./console-trust-panel.js";
import { wireVconFile } from "./console-vcon-file.js";
import { trailVerdict } from "./console-verdict.js";
import { logStatus } from "./log-status.js";
import { byId, el, showVerdict } from "./render.js";
import { markVerdict, type VerdictLook } from "./verdict-look.js";

const status = byId<HTMLDivElement>("status");
const signinSection = byId<HTMLElement>("signin");
const workspace = byId<HTMLElement>("workspace");
const result = byId<HTMLElement>("result");
const logPanel = byId<HTMLElement>("log-panel-body");
/** How often the log panel asks again, while the tab is visible. */
const LOG_REFRESH_MS = 5000;
let session: Session | undefined;
/** The trail on show, while and after its receipts are checked. */
let screen: TrailScreen | undefined;
/** Stops the trail on show's worker (set while one runs). */
let cancelTrail: (() => void) | undefined;
/** The auditor's trust roots: in this page's memory only, like the token; every verdict is judged by them. */
let trust: TrustRoots = noTrust();
/** The panel's fields `trust` was read from: the worker reads the same roots from them. */
let trustInput: TrustInput = NO_TRUST_INPUT;
/** What the trail on show was opened as, to judge it again when the roots change. */
let shownLink: ConsoleLink | { kind: "either"; uuid: string } | undefined;
/**
 * Counts the trails asked for: a load that finishes after a later one was asked for (another
 * trail, or the same one under roots applied meanwhile) shows nothing, so no verdict on screen is
 * one of roots no longer applied.
 */
let asked = 0;
let logTimer: ReturnType<typeof setInterval> | undefined;

/** Says a message, or a verdict (coloured as every page colours it) when one is given. */
function say(ok: boolean | undefined, text: string, verdict?: VerdictLook): void {
  status.hidden = false;
  showVerdict(status, ok, text);
  markVerdict(status, verdict);
}

/** Nothing to say: the status box goes until the next message or verdict. */
function quiet(): void {
  status.hidden = true;
  showVerdict(status, undefined, "");
}

function signedOut(message?: string): void {
  session = undefined;
  clearTrail();
  if (logTimer) clearInterval(logTimer);
  logTimer = undefined;
  workspace.hidden = true;
  signinSection.hidden = false;
  result.replaceChildren();
  byId<HTMLElement>("assets-result").replaceChildren();
  logPanel.replaceChildren();
  if (message) say(false, message);
  else status.hidden = true;
  byId<HTMLInputElement>("client-id").focus();
}

/** Runs a step; an expired or refused token signs the tab out with the reason. */
async function guarded(what: string, step: () => Promise<void>): Promise<void> {
  say(undefined, `${what}…`);
  try {
    await step();
  } catch (err) {
    failed(err);
  }
}

function failed(err: unknown): void {
  const message = (err as Error).message;
  if (/answered 401/.test(message)) signedOut("Your session has ended: sign in again.");
  else say(false, err instanceof LookupError ? message : `Failed: ${message}`);
}

const api = (s: Session): PublicApi => callerApi(location.origin, s);

/** What a trail's export bar may do: read as the session, judge by the roots applied at its click. */
const exportPage = (s: Session): ExportPage => ({ api: () => api(s), trust: () => trust, guarded, say });

const table = new AssetTable(
  {
    form: byId("assets-form"),
    filter: byId("asset-filter"),
    order: byId("asset-order"),
    out: byId("assets-result"),
    prev: byId("assets-prev"),
    nextButton: byId("assets-next"),
    pageLabel: byId("assets-page"),
  },
  (q) => {
    const s = session;
    if (!s) throw new LookupError("signed out");
    return assetPage(location.origin, s, q);
  },
  failed,
);

async function refreshLog(): Promise<void> {
  const s = session;
  if (!s || document.hidden) return;
  const roots = trust;
  try {
    const st = await logStatus(api(s), s.tenant, roots);
    // Judged by roots since replaced: the refresh the new roots started shows their verdict.
    if (session === s && trust === roots) logPanel.replaceChildren(logPanelView(st, new Date()));
  } catch (err) {
    if (session === s)
      logPanel.replaceChildren(el("p", `The log could not be read: ${(err as Error).message}`, "bad"));
  }
}

async function showWorkspace(s: Session): Promise<void> {
  signinSection.hidden = true;
  workspace.hidden = false;
  const who = byId<HTMLElement>("who");
  who.replaceChildren("Signed in as ", el("strong", s.name));
  if (s.name !== s.clientId) who.append(" ", el("span", `(client ${s.clientId})`, "hash"));
  try {
    const t = await api(s).json<{ display_name?: string }>("/archivist/v1/tenancies/self");
    if (t.display_name) who.append(` in ${t.display_name}`);
  } catch {
    // The tenancy's name is a courtesy: without it the line still names the application.
  }
  who.append(". The token is kept in this page's memory only.");
  await table.first();
  await refreshLog();
  logTimer = setInterval(() => void refreshLog(), LOG_REFRESH_MS);
}

async function fingerprints(a: PublicApi): Promise<string[]> {
  try {
    return [...(await a.fetchedKeys())].map(([kid, k]) => `${kid}: ${keyFingerprint(k)}`);
  } catch {
    return [];
  }
}

/** Ends the trail on show: its worker stops, and a load waiting for it returns. */
function clearTrail(): void {
  cancelTrail?.();
  cancelTrail = undefined;
  screen = undefined;
  result.replaceChildren();
}

/**
 * Nothing on show after a question refused or unanswered: the trail goes, a load still under way
 * shows nothing when it ends, and the address stops naming what was shown before (a new entry in
 * the history, so Back returns to it).
 */
function showNothing(): void {
  clearTrail();
  asked++;
  shownLink = undefined;
  if (location.hash) history.pushState(null, "", location.pathname + location.search);
}

/** Loads what a link names, its records in order, their receipts not yet checked. */
async function loadLinked(
  a: PublicApi,
  link: ConsoleLink | { kind: "either"; uuid: string },
): Promise<Trail> {
  if (link.kind === "record")
    return link.asset
      ? loadTrail(a, { kind: "asset", uuid: link.asset }, link.asset)
      : loadFreeEvent(a, link.identity);
  if (link.kind === "either") return loadTrail(a, "either", link.uuid);
  return loadTrail(a, { kind: link.kind, uuid: link.uuid }, link.uuid);
}

/**
 * Opens what a link names: a vCon's or an asset's trail, or a record within its trail; `either`
 * (a bare uuid) the vCon it records, else the asset of that id, then naming it in the address.
 * The records are drawn first, then each receipt's verdict as the worker gives it; the trail's
 * verdict is said once every receipt is checked. `again`, the trail on show, is judged anew under
 * the roots now applied: its records and the receipts already read are checked again, none is
 * shown with a verdict of the roots it replaces.
 */
async function open(link: ConsoleLink | { kind: "either"; uuid: string }, again?: Trail): Promise<void> {
  const s = session;
  if (!s) return;
  if (
    !again &&
    link.kind === "record" &&
    screen?.trail.steps.some((x) => x.facts.identity === link.identity)
  ) {
    // The roots' next change opens the trail at this record.
    shownLink = link;
    screen.select(link.identity);
    say(true, `Showing ${link.identity} in its trail.`);
    return;
  }
  // A new question: the previous answer goes, so a "not found" never sits above an old trail.
  clearTrail();
  shownLink = link;
  const ask = ++asked;
  const roots = trust;
  const input = trustInput;
  const current = () => session === s && ask === asked && trust === roots;
  const held = again ? heldReceipts(again) : {};
  await guarded(again ? "Judging the trail again" : "Loading the trail", async () => {
    const a = api(s);
    const t = again ? unjudged(again) : await loadLinked(a, link);
    if (!current()) return;
    if (link.kind === "either") {
      const named = consoleFragment(
        t.target.kind === "asset" ? { kind: "asset", uuid: link.uuid } : { kind: "vcon", uuid: link.uuid },
      );
      history.replaceState(null, "", named);
    }
    const [served, prints] = await Promise.all([a.fetchedKeys().catch(() => undefined), fingerprints(a)]);
    if (!current()) return;
    const view = new TrailScreen(
      t,
      { prints, pinned: pinsSomething(roots), described: roots.described },
      exportPage(s),
    );
    screen = view;
    result.replaceChildren(view.root);
    const heading = byId<HTMLElement>("trail-heading");
    heading.setAttribute("tabindex", "-1");
    if (link.kind !== "record" || !view.select(link.identity)) heading.focus();
    const check = checkInWorker(s.token, view, { trust: input, held }, (text) => say(undefined, text));
    cancelTrail = check.stop;
    const [context, done] = await Promise.all([trailContext(a, t), check.done]);
    if (!done || !current()) return;
    view.context(context);
    view.finish(served);
    const { ok, text, verdict } = trailVerdict(t, pinsSomething(roots));
    say(ok, text, verdict);
    if (link.kind !== "record") return;
    if (view.holds(link.identity)) view.refocus();
    else say(false, `${link.identity} is not in its asset's trail as you may read it`);
  });
}

/** Shows what the address names (called on sign-in and whenever the fragment changes). */
function followAddress(): void {
  const link = parseConsoleLink(location.hash);
  if (link && session) void open(link);
}

/** Goes to a link: through the address, so it can be copied, bookmarked and gone back to. */
function go(link: ConsoleLink): void {
  const fragment = consoleFragment(link);
  if (location.hash === fragment) void open(link);
  else location.hash = fragment;
}

window.addEventListener("hashchange", followAddress);
// A link to what the address already names changes nothing, so no hashchange: open it again
// (the trail it names may have gone with a later question).
document.addEventListener("click", (e) => {
  const a = e.target instanceof Element ? e.target.closest("a[href^='#']") : null;
  if (a && a.getAttribute("href") === location.hash) {
    e.preventDefault();
    followAddress();
  }
});

byId<HTMLFormElement>("signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const id = byId<HTMLInputElement>("client-id").value.trim();
  const secret = byId<HTMLInputElement>("client-secret").value;
  void guarded("Signing in", async () => {
    const s = await signIn(location.origin, id, secret);
    session = s;
    byId<HTMLInputElement>("client-secret").value = "";
    await showWorkspace(s);
    // The line above the workspace says who signed in (and is announced): the status box says it
    // no second time.
    quiet();
    byId<HTMLInputElement>("query").focus();
    followAddress();
  });
});

byId<HTMLFormElement>("statements-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const s = session;
  if (!s) return signedOut();
  const field = byId<HTMLSelectElement>("statement-field").value as StatementField;
  const value = byId<HTMLInputElement>("statement-value").value;
  const out = byId<HTMLElement>("statements-result");
  out.replaceChildren();
  void guarded("Finding statements", async () => {
    const found = await findStatements(api(s), field, value);
    out.replaceChildren(statementsTable(found));
    say(true, `${found.length} statement(s) found by ${field.replace("_", " ")}`);
  });
});
byId<HTMLButtonElement>("signout").addEventListener("click", () => signedOut());

/** Uses new roots for every verdict: the log panel and the trail on show are judged again. */
function useTrust(roots: TrustRoots, input: TrustInput): void {
  trust = roots;
  trustInput = input;
  const summary = byId<HTMLElement>("trust-summary");
  summary.textContent = trustSummary(roots);
  summary.dataset.pinned = String(pinsSomething(roots));
  void refreshLog();
  // The trail on show is judged again from what was read; one still loading is loaded again.
  if (shownLink && session) void open(shownLink, screen?.trail);
  else say(true, trustSummary(roots));
}

wireTrustPanel(useTrust, (message) =>
  // The roots in use stay as they were: a typo never silently changes what is trusted.
  say(false, `Trust roots refused, the ones in use are kept: ${message}`),
);
byId<HTMLFormElement>("find-form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (!session) return signedOut();
  const text = byId<HTMLInputElement>("query").value;
  const place = parseLogPlace(text);
  if (place) {
    const s = session;
    clearTrail();
    void guarded(`Finding ${placeWords(place)}`, async () => {
      const identity = await recordAtPlace(api(s), s.tenant, place).catch((err: unknown) => {
        showNothing();
        throw err;
      });
      const asset = /^assets\/([0-9a-f-]{36})\//.exec(identity)?.[1];
      go(asset ? { kind: "record", identity, asset } : { kind: "record", identity });
    });
    return;
  }
  if (isBareNumber(text)) {
    // Log entry 7 is at MMR position 11: a bare number could name either record.
    showNothing();
    const n = text.trim().replace("#", "");
    return say(
      false,
      `Which number is ${n}? Enter log entry ${n} (as checkpoints and tlog-proofs count) or mmr ${n} (the MMR position, as MMR receipts name it).`,
    );
  }
  const target = parseTarget(text);
  if (!target) {
    showNothing();
    return say(false, "Enter vcon://<uuid>, a vCon uuid, assets/<uuid>, log entry <n> or mmr <position>.");
  }
  if (target !== "either") return go(target);
  // A bare uuid: the vCon it records, else the asset of that id.
  void open({ kind: "either", uuid: (text.trim().match(/[0-9a-f-]{36}/i)?.[0] ?? "").toLowerCase() });
});

wireVconFile({
  session: () => session,
  api,
  showNothing,
  guarded,
  open: (link) => open(link),
  screen: () => screen,
  go,
  say,
});
