import { emptyPolicy, parsePolicy, type TrustRoots } from "../verify/index.js";

/**
 * The /verify page's trust roots: a policy pasted into the page (C2SP tlog-policy lines and
 * `service-key` fingerprints). The page is served by the service it checks, so nothing it
 * fetches from there is a root: without a policy the verdict is at best self-consistent.
 */
export function policyRoots(text: string): TrustRoots {
  if (!text.trim()) return { policy: emptyPolicy(), described: [] };
  return { policy: parsePolicy(text), described: ["the policy given on this page"] };
}
