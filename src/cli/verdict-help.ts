import { EXIT_CODES, USAGE_EXIT_CODE, VERDICT_CODES } from "../verify/index.js";

/** The exit statuses of every verification, one per verdict code (docs/verification.md). */
export const EXIT_HELP = `Exit status, by verdict code (--json prints the verdict object):
${VERDICT_CODES.map((c) => `  ${EXIT_CODES[c]}  ${c}`).join("\n")}
  ${USAGE_EXIT_CODE} a usage error (no verdict: the reason on stderr)
Without --keys, --log-key, --witness or --policy nothing is "verified": at best self-consistent.`;
