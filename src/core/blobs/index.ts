export { scanBlob } from "./scan.js";

export { sniffMimeType } from "./sniff.js";
