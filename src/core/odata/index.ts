export type {
  ODataColumnMap,
  ODataExpr,
} from "./ast.js";
export { compileODataFilter } from "./compile.js";

export { parseODataFilter } from "./parser.js";

export { requiredTrails } from "./required-trails.js";
