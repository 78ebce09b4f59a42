import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Principal } from "../context.js";
import { badRequest } from "../errors/api-error.js";

/** Who may call a route: a token is required, not wanted, or used when sent. */
export type Auth = "token" | "public" | "optional";

/** What a handler receives: validated input and, on authenticated routes, the caller. */
export interface Call<B, Q, A extends Auth = "token"> {
  body: B;
  query: Q;
  params: Record<string, string>;
  /** Raw query pairs in order (dotted attribute filters are read from these). */
  pairs: Array<[string, string]>;
  /** The caller: always there on token routes, absent on public ones and optional ones called without a token. */
  principal: A extends "token" ? Principal : Principal | undefined;
  caller: Principal | undefined;
  req: FastifyRequest;
  res: FastifyReply;
}

/** One API operation: its schemas drive validation and the OpenAPI documents alike. */
export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, A extends Auth = Auth> {
  method: "get" | "post" | "patch" | "delete" | "put";
  /** Path as documented; a verb is written `{uuid}:verb` and routed as `/@verb`. */
  path: string;
  group: string;
  summary: string;
  /** `optional`: a token is used when sent (public records need none). */
  auth: A;
  body?: B;
  /** Media types the body may have (any the parsers read, when absent); others are a 400. */
  contentTypes?: string[];
  /** False where an empty body means "nothing to say" (searches, verbs); otherwise it is a 400. */
  bodyRequired?: boolean;
  query?: Q;
  response?: z.ZodType;
  /**
   * False for a route that is not a GET and stores nothing (the token endpoint): its answer does
   * not wait for the standby (DATABASE_STANDBY_URL) as a write's does.
   */
  writes?: false;
  /** Returns the JSON to send, or the reply (or `undefined`) when it answered itself. */
  handler: (call: Call<z.infer<B>, z.infer<Q>, A>) => Promise<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds specs of every body and query type
export type AnyRouteSpec = RouteSpec<any, any, any>;

/** Router path for a documented path: `{x}` → `:x`, `:verb` suffix → `/@verb`. */
function routerPath(path: string): string {
  return path.replace(/:([a-z][a-z-]*)$/i, "/@$1").replace(/\{([a-z_]+)\}/gi, ":$1");
}

function formatIssues(error: z.ZodError, where: string): string {
  return error.issues
    .map((i) => `${where}${i.path.length ? `.${i.path.join(".")}` : ""}: ${i.message}`)
    .join("; ");
}

/** Parses `value` with `schema`, answering 400 that names the field on failure. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success)
    throw badRequest(
      formatIssues(r.error, where),
      r.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
    );
  return r.data;
}

/** Query pairs of a request, in order, `+` and percent escapes decoded. */
export function queryPairs(url: string): Array<[string, string]> {
  const q = url.indexOf("?");
  return q < 0 ? [] : [...new URLSearchParams(url.slice(q + 1))];
}

/** Last value of each query key, for schema validation of the scalar parameters. */
export function queryObject(pairs: Array<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of pairs) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** Registers routes on the server, remembering each for the OpenAPI documents. */
export class RouteTable {
  readonly specs: AnyRouteSpec[] = [];

  constructor(
    private readonly server: FastifyInstance,
    private readonly run: (spec: AnyRouteSpec, req: FastifyRequest, res: FastifyReply) => Promise<void>,
    /** Runs before the body is read (authentication, rate limits). */
    private readonly gate?: (spec: AnyRouteSpec, req: FastifyRequest) => Promise<void> | undefined,
  ) {}

  add<B extends z.ZodType, Q extends z.ZodType, A extends Auth>(spec: RouteSpec<B, Q, A>): void {
    this.specs.push(spec);
    const run = this.run;
    const gate = this.gate;
    this.server.route({
      method: spec.method.toUpperCase() as Uppercase<RouteSpec<B, Q, A>["method"]>,
      url: routerPath(spec.path),
      // A callback hook, so that a caller settled at once costs no promise (`Gate`).
      ...(gate
        ? {
            onRequest: (req: FastifyRequest, _res: FastifyReply, done: (err?: Error) => void) => {
              const waiting = gate(spec, req);
              if (waiting === undefined) done();
              else waiting.then(() => done(), done);
            },
          }
        : {}),
      // Answered, the route's promise settles with nothing; otherwise with the reply, which Fastify
      // then waits for. A promise's `then` here, not an async wrapper: one promise a request fewer.
      handler: (req, res) => run(spec, req, res).then(() => (res.sent ? undefined : res)),
    });
  }
}
