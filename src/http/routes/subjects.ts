import { pathUuid } from "../../errors/path-uuid.js";
import {
  createSubject,
  exportSubject,
  importSubject,
  patchSubject,
  readSubject,
  removeSubject,
  subjectOut,
  subjectSource,
} from "../../services/identity/subjects.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import {
  subject,
  subjectCreate,
  subjectImport,
  subjectList,
  subjectListOut,
  subjectPatch,
  subjectString,
} from "../schemas/subjects.js";

const BASE = "/archivist/iam/v1/subjects";
const group = "subjectsv1";

/** Subjects (other organisations' identities, and Self), their import and export as subject strings. */
export function subjectRoutes(t: RouteTable, d: HttpDeps): void {
  crudRoutes(t, d, {
    base: BASE,
    group,
    noun: "subject",
    list: {
      summary: "List subjects (Self included)",
      query: subjectList,
      response: subjectListOut,
      collection: "subjects",
      rows: ({ principal }, q) => subjectSource(d.ctx, principal, q),
      shape: subjectOut,
    },
    create: {
      summary: "Create a subject from its keys",
      body: subjectCreate,
      response: subject,
      run: (p, body) => createSubject(d.ctx, p, body),
    },
    read: {
      summary: "Get a subject (Self: subjects/00000000-0000-0000-0000-000000000000)",
      response: subject,
      run: (p, id) => readSubject(d.ctx, p, id),
    },
    patch: {
      summary: "Update a subject (each field sent replaces the stored one; Self cannot change)",
      body: subjectPatch,
      response: subject,
      run: (p, id, body) => patchSubject(d.ctx, p, id, body),
    },
    remove: {
      summary: "Delete a subject (Self cannot be deleted)",
      run: (p, id) => removeSubject(d.ctx, p, id),
    },
  });
  t.add({
    method: "post",
    path: `${BASE}:import`,
    group,
    auth: "token",
    summary: "Create a subject from the subject string another organisation's administrator handed over",
    body: subjectImport,
    response: subject,
    handler: ({ principal, body }) => importSubject(d.ctx, principal, body),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}:export`,
    group,
    auth: "token",
    summary: "Export a subject (usually Self) as a subject string",
    response: subjectString,
    handler: ({ principal, params }) => exportSubject(d.ctx, principal, pathUuid(params.uuid, "subject")),
  });
}
