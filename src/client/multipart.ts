import { randomUUID } from "node:crypto";

/** A file sent as a multipart form's part. */
export interface FilePart {
  bytes: Uint8Array;
  filename: string;
  mimeType?: string;
}

const quoted = (s: string) => s.replace(/[\r\n"\\]/g, (c) => encodeURIComponent(c));

/** A `multipart/form-data` body with one file part, and its content type (with the boundary). */
export function multipartFile(field: string, file: FilePart): { bytes: Uint8Array; contentType: string } {
  const boundary = `----archivist-client-${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="${quoted(field)}"; filename="${quoted(file.filename)}"\r\n` +
      `content-type: ${file.mimeType ?? "application/octet-stream"}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    bytes: new Uint8Array(Buffer.concat([head, file.bytes, tail])),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
