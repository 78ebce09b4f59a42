import { startsWith, view } from "./bytes.js";

/** The executable formats the scanner recognises. */
export type ExecutableKind = "PE" | "ELF" | "Mach-O" | "script";

/** `MZ` alone starts plenty of text, so a PE needs its `PE\0\0` header or a binary DOS header. */
function isPe(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, [0x4d, 0x5a])) return false;
  if (bytes.length >= 0x40) {
    const peOffset = view(bytes).getUint32(0x3c, true);
    if (startsWith(bytes, [0x50, 0x45, 0, 0], peOffset)) return true;
  }
  return bytes.subarray(0, 0x40).includes(0);
}

const MACH_O = [
  [0xfe, 0xed, 0xfa, 0xce],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe],
];

/** Mach-O, thin or fat; a fat header shares CAFEBABE with Java classes, whose next word is large. */
function isMachO(bytes: Uint8Array): boolean {
  if (MACH_O.some((magic) => startsWith(bytes, magic))) return true;
  if (!startsWith(bytes, [0xca, 0xfe, 0xba, 0xbe]) || bytes.length < 8) return false;
  const architectures = view(bytes).getUint32(4, false);
  return architectures > 0 && architectures < 30;
}

/** `#!` then an interpreter path: `#!/bin/sh`, `#! /usr/bin/env python`. */
const isScript = (bytes: Uint8Array) => /^#! ?\//.test(Buffer.from(bytes.subarray(0, 4)).toString("latin1"));

/** Which executable format the bytes start with, if any. */
export function executableKind(bytes: Uint8Array): ExecutableKind | undefined {
  if (isPe(bytes)) return "PE";
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return "ELF";
  if (isMachO(bytes)) return "Mach-O";
  if (isScript(bytes)) return "script";
  return undefined;
}

// Names that Windows runs (or asks to run) when opened from inside a document.
const RUNNABLE_NAME = /\.(exe|dll|scr|com|msi|bat|cmd|ps1|vbs|vbe|jse|wsf|lnk|cpl|hta|pif)$/i;

/** True for an archive entry named like something Windows would execute. */
export const isRunnableName = (name: string) => RUNNABLE_NAME.test(name);
