import { LookupError } from "../lookup/public-api.js";
import type { TrailScreen } from "./console-trail-view.js";
import type { TrustInput } from "./console-trust.js";
import { count } from "./pager.js";
import { runInWorker } from "./worker-client.js";
import type { Prefetched } from "./worker-protocol.js";

/** A trail's check running in the worker: `done` true once every receipt is checked, false if stopped first. */
export interface TrailCheck {
  done: Promise<boolean>;
  stop(): void;
}

/**
 * The trail's receipts checked in the worker under the roots the panel's fields gave (those
 * `held` already read, the rest read by the worker in batches), each batch drawn as it comes and
 * the count so far told to `progress`.
 */
export function checkInWorker(
  token: string,
  view: TrailScreen,
  how: { trust: TrustInput; held: Prefetched },
  progress: (text: string) => void,
): TrailCheck {
  let stop = () => {};
  const done = new Promise<boolean>((resolve, reject) => {
    const job = runInWorker(
      {
        kind: "receipts",
        origin: location.origin,
        token,
        records: view.trail.steps.map((x) => x.record),
        prefetched: how.held,
        trust: how.trust,
      },
      (m) => {
        if (m.kind === "progress") {
          view.checked(m.checks, m.done);
          progress(`Verifying receipts in this browser: ${count(m.done)} of ${count(m.total)} checked…`);
        } else if (m.kind === "done") resolve(true);
        else if (m.kind === "error") reject(new LookupError(`verifying the receipts: ${m.message}`));
      },
    );
    stop = () => {
      job.stop();
      resolve(false);
    };
  });
  return { done, stop: () => stop() };
}
