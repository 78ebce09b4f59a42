import { z } from "zod";
import type { AnyRouteSpec } from "./route.js";

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType): Json {
  try {
    const s = z.toJSONSchema(schema, { target: "openapi-3.0", unrepresentable: "any", io: "input" }) as Json;
    delete s.$schema;
    return s;
  } catch {
    return { type: "object" };
  }
}

function queryParameters(schema: z.ZodType | undefined): Json[] {
  if (!schema) return [];
  const s = jsonSchema(schema);
  const props = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, p]) => ({
    name,
    in: "query",
    required: required.has(name),
    type: typeof p.type === "string" ? p.type : "string",
  }));
}

/** The body as Swagger 2.0 says it: one `body` parameter, or a form's fields as `formData` ones. */
function bodyParameters(spec: AnyRouteSpec): Json[] {
  if (!spec.body) return [];
  const schema = jsonSchema(spec.body);
  const form = spec.contentTypes?.every(
    (t) => t === "application/x-www-form-urlencoded" || t === "multipart/form-data",
  );
  if (!form) return [{ name: "body", in: "body", required: true, schema }];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, p]) => ({
    name,
    in: "formData",
    required: required.has(name),
    type: typeof p.type === "string" ? p.type : "string",
    ...(Array.isArray(p.enum) ? { enum: p.enum } : {}),
  }));
}

function operation(spec: AnyRouteSpec): Json {
  const pathParams = [...spec.path.matchAll(/\{([a-z_]+)\}/gi)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    type: "string",
  }));
  return {
    summary: spec.summary,
    operationId: `${spec.method}${spec.path.replace(/[^a-zA-Z0-9]+/g, "_")}`,
    tags: [spec.group],
    // The document's `consumes` says JSON; a route that takes another type says its own (the
    // token endpoint's form, which answers JSON with 415).
    ...(spec.contentTypes ? { consumes: spec.contentTypes } : {}),
    parameters: [...pathParams, ...queryParameters(spec.query), ...bodyParameters(spec)],
    responses: {
      200: { description: "OK", schema: spec.response ? jsonSchema(spec.response) : { type: "object" } },
      default: { description: "Error: {code, message, details}" },
    },
    security: spec.auth === "token" ? [{ bearer: [] }] : [],
  };
}

/** A Swagger 2.0 document of every route under `prefix`, generated from the same zod schemas that validate them. */
export function openApiDocument(specs: AnyRouteSpec[], prefix: string, baseUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const spec of specs.filter((s) => s.path.startsWith(prefix))) {
    const entry = paths[spec.path] ?? {};
    entry[spec.method] = operation(spec);
    paths[spec.path] = entry;
  }
  const url = new URL(baseUrl);
  return {
    swagger: "2.0",
    info: { title: `Archivist API ${prefix}`, version: "v1" },
    host: url.host,
    schemes: [url.protocol.replace(":", "")],
    consumes: ["application/json"],
    produces: ["application/json"],
    securityDefinitions: { bearer: { type: "apiKey", name: "Authorization", in: "header" } },
    paths,
  };
}
