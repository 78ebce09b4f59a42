export type {
  ODataColumnMap,
  ODataColumnType,
  ODataExpr,
  ODataIntegerField,
  ODataOp,
  ODataProperty,
  ODataTarget,
  ODataTextField,
} from "./ast.js";
export { compileODataFilter } from "./compile.js";
export { evaluateODataFilter, type ODataRecord } from "./evaluate.js";
export { formatODataFilter } from "./format.js";
export { MAX_FILTER_LENGTH } from "./lexer.js";
export { MAX_FILTER_DEPTH, parseODataFilter } from "./parser.js";
export { columnTypeOf, PROPERTY_NAMES } from "./properties.js";
export { requiredTrails } from "./required-trails.js";
