/**
 * Where bearer tokens come from: the client asks before each request and reports a 401. Here,
 * not in the client, because the auditor's look-ups (src/lookup) take one too and the audit
 * room imports nothing of the client.
 */
export interface BearerTokens {
  get(signal?: AbortSignal): Promise<string>;
  /** Forgets `token` (it was refused), so the next `get` fetches a new one. */
  invalidate(token: string): void;
}
