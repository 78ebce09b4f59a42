/** Saves bytes or text as a file the browser downloads (a blob URL, revoked once the download began). */
export function saveFile(name: string, content: Uint8Array | string, type: string): void {
  const part = typeof content === "string" ? content : new Uint8Array(content);
  const url = URL.createObjectURL(new Blob([part], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
