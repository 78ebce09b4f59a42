import { pathUuid } from "../../core/api/ids.js";
import {
  createTlsCertificate,
  patchTlsCertificate,
  readTlsCertificate,
  removeTlsCertificate,
  tlsCertificateOut,
  tlsCertificateSource,
} from "../../services/identity/tls-certificates.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";
import {
  tlsCertificate,
  tlsCertificateBody,
  tlsCertificateList,
  tlsCertificateListOut,
} from "../schemas/tls-certificates.js";

const BASE = "/archivist/v1/tlscacertificates";
const group = "tlscacertificatesv1";

/** TLS CA certificates: CRUD with both spellings of the certificate field and list wrapper. */
export function tlsCertificateRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: BASE,
      group,
      summary: "List TLS CA certificates",
      query: tlsCertificateList,
      response: tlsCertificateListOut,
      collection: "tlscacertificates",
      rows: ({ principal }, q) => tlsCertificateSource(d.ctx, principal, q),
      shape: tlsCertificateOut,
      // The reference names the wrapper `tlscacertificates`, the usage examples `certificates`: both are sent.
      also: (body) => ({ certificates: body.tlscacertificates }),
    }),
  );
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Upload a TLS CA certificate (PEM; must be a CA certificate and not expired)",
    body: tlsCertificateBody,
    response: tlsCertificate,
    handler: ({ principal, body }) => createTlsCertificate(d.ctx, principal, body),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Get a TLS CA certificate",
    response: tlsCertificate,
    handler: ({ principal, params }) =>
      readTlsCertificate(d.ctx, principal, pathUuid(params.uuid, "TLS CA certificate")),
  });
  t.add({
    method: "patch",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Update a TLS CA certificate",
    body: tlsCertificateBody,
    response: tlsCertificate,
    handler: ({ principal, params, body }) =>
      patchTlsCertificate(d.ctx, principal, pathUuid(params.uuid, "TLS CA certificate"), body),
  });
  t.add({
    method: "delete",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Delete a TLS CA certificate",
    handler: async ({ principal, params }) => {
      await removeTlsCertificate(d.ctx, principal, pathUuid(params.uuid, "TLS CA certificate"));
      return {};
    },
  });
}
