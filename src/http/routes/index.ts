import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { applicationRoutes } from "./applications.js";
import { assetRoutes } from "./assets.js";
import { freeEventRoutes } from "./free-events.js";
import { locationRoutes } from "./locations.js";
import { publicAssetRoutes } from "./public-assets.js";
import { tenancyRoutes } from "./tenancies.js";
import { tokenRoutes } from "./tokens.js";

/** Every route module, in registration order (more specific paths first where they overlap). */
export const routeModules: Array<(t: RouteTable, d: HttpDeps) => void> = [
  tokenRoutes,
  applicationRoutes,
  tenancyRoutes,
  assetRoutes,
  publicAssetRoutes,
  locationRoutes,
  freeEventRoutes,
];
