import { pathUuid } from "../../errors/path-uuid.js";
import {
  listNotices,
  listProcessors,
  registerProcessor,
  removeProcessor,
} from "../../services/lifecycle/revocation-notices.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import {
  noticesOut,
  noticesQuery,
  processorCreated,
  processorList,
  processorRequest,
} from "../schemas/consent-processors.js";

const group = "lifecyclev1";
const base = "/archivist/v1/consent/processors";

/** Processors told of consent revocations, and the notices (docs/vcon-lifecycle.md, §2); administrators only. */
export function consentProcessorRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: base,
    group,
    auth: "token",
    summary:
      "Register a processor to be told of the tenancy's consent revocations (signed webhooks, retried until it answers 2xx)",
    body: processorRequest,
    response: processorCreated,
    handler: async ({ principal, body }) => registerProcessor(d.ctx, principal, body),
  });
  t.add({
    method: "get",
    path: base,
    group,
    auth: "token",
    summary: "The processors told of the tenancy's consent revocations",
    response: processorList,
    handler: async ({ principal }) => ({ processors: await listProcessors(d.ctx, principal) }),
  });
  t.add({
    method: "delete",
    path: `${base}/{uuid}`,
    group,
    auth: "token",
    summary: "Stop telling a processor of revocations (its notices go with it)",
    handler: async ({ principal, params }) => {
      await removeProcessor(d.ctx, principal, pathUuid(params.uuid, "processor"));
      return {};
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/consent/notices",
    group,
    auth: "token",
    summary:
      "The revocation notices sent to processors, each acknowledged (with its record) or not yet, and those not acknowledged",
    query: noticesQuery,
    response: noticesOut,
    handler: async ({ principal, query }) =>
      listNotices(d.ctx, principal, {
        vcon: query.vcon,
        unacknowledged: query.unacknowledged === "true",
      }),
  });
}
