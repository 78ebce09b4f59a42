import { readFile } from "node:fs/promises";
import { OOXML } from "../../../../src/core/blobs/ooxml.js";

/** The clean sample files (fixtures/blobs) and the type each is. */
export const CLEAN_SAMPLES: Array<[string, string]> = [
  ["sample.png", "image/png"],
  ["sample.pdf", "application/pdf"],
  ["sample.docx", OOXML.docx],
  ["sample.txt", "text/plain"],
  ["sample.json", "application/json"],
];

/** Reads a checked-in fixture of fixtures/blobs. */
export async function fixture(name: string): Promise<Buffer> {
  return readFile(new URL(`../../../../fixtures/blobs/${name}`, import.meta.url));
}

/** The EICAR test string, assembled at run time so no file in the repository carries it. */
export const EICAR = `X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-${"STANDARD-ANTIVIRUS-TEST-FILE"}!$H+H*`;
