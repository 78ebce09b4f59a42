import type { ScenarioName } from "../options.js";
import type { Scenario } from "../scenario.js";
import { afe } from "./afe.js";
import { conserver } from "./conserver.js";
import { core } from "./core.js";
import { evidence } from "./evidence.js";
import { hostile } from "./hostile.js";
import { ingest } from "./ingest.js";
import { list } from "./list.js";
import { pages } from "./pages.js";
import { pair } from "./pair.js";
import { receipts } from "./receipts.js";
import { scaleout } from "./scaleout.js";
import { statements } from "./statements.js";
import { tlog } from "./tlog.js";
import { tokens } from "./tokens.js";
import { trees } from "./trees.js";
import { vindex } from "./vindex.js";

/** Every scenario by name. */
export const scenarios: Record<ScenarioName, Scenario> = {
  core,
  tokens,
  ingest,
  afe,
  list,
  receipts,
  evidence,
  pages,
  trees,
  tlog,
  conserver,
  hostile,
  statements,
  scaleout,
  pair,
  vindex,
};
