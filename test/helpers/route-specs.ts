import Fastify from "fastify";
import type { HttpDeps } from "../../src/http/deps.js";
import { type AnyRouteSpec, RouteTable } from "../../src/http/route.js";
import { routeModules } from "../../src/http/routes/index.js";

/** Every operation of the route table, read without running a service (handlers are not called). */
export function allSpecs(): AnyRouteSpec[] {
  const table = new RouteTable(Fastify(), async () => undefined);
  for (const register of routeModules) register(table, {} as HttpDeps);
  return table.specs;
}
