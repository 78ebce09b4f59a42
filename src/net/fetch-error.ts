/**
 * What stopped a fetch, in words: undici reports every network failure as "fetch failed" and
 * keeps the reason (refused, unknown host, TLS, timeout) on `cause`.
 */
export function fetchFailure(url: string, err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const reason =
    code === "ECONNREFUSED"
      ? "connection refused (is the service running at that address?)"
      : code === "ENOTFOUND" || code === "EAI_AGAIN"
        ? "unknown host"
        : code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT"
          ? "connection timed out"
          : typeof cause?.message === "string" && cause.message
            ? cause.message
            : err instanceof Error
              ? err.message
              : String(err);
  return `cannot reach ${url}: ${reason}${code && !reason.includes(code) ? ` (${code})` : ""}`;
}
