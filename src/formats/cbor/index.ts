export { CborError, decodeCbor } from "./decode.js";
export {
  CborBstr,
  type CborValue,
  CborWriter,
  encodeCbor,
  headSize,
  releaseWriter,
  Tagged,
  takeWriter,
  writeHead,
} from "./encode.js";
