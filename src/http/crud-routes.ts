import type { z } from "zod";
import type { Principal } from "../context.js";
import { pathUuid } from "../errors/path-uuid.js";
import type { HttpDeps } from "./deps.js";
import { listRoute, type SourceListRoute } from "./listing.js";
import type { RouteTable } from "./route.js";

/**
 * A tenancy's collection of one kind of thing, as the interface shapes it: list, create, read,
 * update (where it has one) and delete at `base` and `base/{uuid}`. Each use case takes the
 * caller and the id; a response schema, where given, documents the answer.
 */
export interface CrudSpec<R extends { seq: number }, C extends z.ZodType, P extends z.ZodType> {
  base: string;
  group: string;
  /** What `{uuid}` names, for the 400 of a malformed one ("access policy"). */
  noun: string;
  list: Omit<SourceListRoute<R>, "path" | "group">;
  create: {
    summary: string;
    body: C;
    response?: z.ZodType;
    run: (p: Principal, body: z.infer<C>) => Promise<unknown>;
  };
  read: { summary: string; response?: z.ZodType; run: (p: Principal, id: string) => Promise<unknown> };
  patch?: {
    summary: string;
    body: P;
    response?: z.ZodType;
    run: (p: Principal, id: string, body: z.infer<P>) => Promise<unknown>;
  };
  /** Answers what `run` gives (the removed item, for some), else `{}`. */
  remove: { summary: string; run: (p: Principal, id: string) => Promise<unknown> };
}

/** Adds the five routes of `spec`; a module adds its verbs (`:regenerate-secret`, `:import`) beside them. */
export function crudRoutes<R extends { seq: number }, C extends z.ZodType, P extends z.ZodType>(
  t: RouteTable,
  d: HttpDeps,
  spec: CrudSpec<R, C, P>,
): void {
  const { base, group, noun } = spec;
  const item = `${base}/{uuid}`;
  const id = (params: Record<string, string>) => pathUuid(params.uuid, noun);
  t.add(listRoute(d.ctx, { ...spec.list, path: base, group }));
  t.add({
    method: "post",
    path: base,
    group,
    auth: "token",
    summary: spec.create.summary,
    body: spec.create.body,
    response: spec.create.response,
    handler: ({ principal, body }) => spec.create.run(principal, body),
  });
  t.add({
    method: "get",
    path: item,
    group,
    auth: "token",
    summary: spec.read.summary,
    response: spec.read.response,
    handler: ({ principal, params }) => spec.read.run(principal, id(params)),
  });
  const patch = spec.patch;
  if (patch)
    t.add({
      method: "patch",
      path: item,
      group,
      auth: "token",
      summary: patch.summary,
      body: patch.body,
      response: patch.response,
      handler: ({ principal, params, body }) => patch.run(principal, id(params), body),
    });
  t.add({
    method: "delete",
    path: item,
    group,
    auth: "token",
    summary: spec.remove.summary,
    handler: async ({ principal, params }) => {
      return (await spec.remove.run(principal, id(params))) ?? {};
    },
  });
}
