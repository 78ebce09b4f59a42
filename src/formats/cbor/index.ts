export { CborError, decodeCbor } from "./decode.js";
export {
  CborBstr,
  type CborValue,
  CborWriter,
  encodeCbor,
  releaseWriter,
  Tagged,
  takeWriter,
} from "./encode.js";
