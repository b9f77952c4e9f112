/** Reads REST request bodies: JSON, or multipart with `payload_json` and `files[n]` parts. */
import type { IncomingMessage } from 'node:http';
import type { ReceivedFile } from './types.ts';

/** A parsed request body. */
export interface ParsedBody {
  json: unknown;
  files: ReceivedFile[];
}

/** Collects the whole request body. */
export async function readRaw(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Parses a body by its content type; throws on malformed JSON or multipart. */
export async function parseBody(raw: Buffer, contentType: string | undefined): Promise<ParsedBody> {
  if (raw.length === 0) return { json: undefined, files: [] };
  if (contentType?.startsWith('multipart/form-data')) return parseMultipart(raw, contentType);
  return { json: JSON.parse(raw.toString('utf8')), files: [] };
}

async function parseMultipart(raw: Buffer, contentType: string): Promise<ParsedBody> {
  const form = await new Response(new Uint8Array(raw), {
    headers: { 'content-type': contentType },
  }).formData();
  let json: unknown;
  const files: ReceivedFile[] = [];
  for (const [key, value] of form.entries()) {
    if (key === 'payload_json') {
      json = JSON.parse(typeof value === 'string' ? value : await value.text());
      continue;
    }
    if (typeof value === 'string') continue;
    const index = /^files\[(\d+)\]$/.exec(key)?.[1];
    files.push({
      key,
      index: index === undefined ? files.length : Number(index),
      filename: value.name,
      contentType: value.type || 'application/octet-stream',
      data: Buffer.from(await value.arrayBuffer()),
    });
  }
  return { json, files };
}
