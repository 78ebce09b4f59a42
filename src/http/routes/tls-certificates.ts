import {
  createTlsCertificate,
  patchTlsCertificate,
  readTlsCertificate,
  removeTlsCertificate,
  tlsCertificateOut,
  tlsCertificateSource,
} from "../../services/identity/tls-certificates.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import {
  tlsCertificate,
  tlsCertificateBody,
  tlsCertificateList,
  tlsCertificateListOut,
} from "../schemas/tls-certificates.js";

/** TLS CA certificates: CRUD with both spellings of the certificate field and list wrapper. */
export function tlsCertificateRoutes(t: RouteTable, d: HttpDeps): void {
  crudRoutes(t, d, {
    base: "/archivist/v1/tlscacertificates",
    group: "tlscacertificatesv1",
    noun: "TLS CA certificate",
    list: {
      summary: "List TLS CA certificates",
      query: tlsCertificateList,
      response: tlsCertificateListOut,
      collection: "tlscacertificates",
      rows: ({ principal }, q) => tlsCertificateSource(d.ctx, principal, q),
      shape: tlsCertificateOut,
      // The reference names the wrapper `tlscacertificates`, the usage examples `certificates`: both are sent.
      also: (body) => ({ certificates: body.tlscacertificates }),
    },
    create: {
      summary: "Upload a TLS CA certificate (PEM; must be a CA certificate and not expired)",
      body: tlsCertificateBody,
      response: tlsCertificate,
      run: (p, body) => createTlsCertificate(d.ctx, p, body),
    },
    read: {
      summary: "Get a TLS CA certificate",
      response: tlsCertificate,
      run: (p, id) => readTlsCertificate(d.ctx, p, id),
    },
    patch: {
      summary: "Update a TLS CA certificate",
      body: tlsCertificateBody,
      response: tlsCertificate,
      run: (p, id, body) => patchTlsCertificate(d.ctx, p, id, body),
    },
    remove: { summary: "Delete a TLS CA certificate", run: (p, id) => removeTlsCertificate(d.ctx, p, id) },
  });
}
