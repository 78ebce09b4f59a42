/**
 * A tenancy log's name: the scheme-less URL prefix of its tiles, as c2sp.org/tlog-tiles
 * recommends (`example.com/archivist/v1/merklelogs/<tenant>/tlog`). It is the checkpoint's
 * origin line and the log key's name; the service keeps the first one it published.
 */
export function logOrigin(baseUrl: string, tenantId: string): string {
  const prefix = baseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/+$/, "");
  return `${prefix}/archivist/v1/merklelogs/${tenantId}/tlog`;
}
