/** Helpers for the emulator's v3 tests: submit, wait, and a WebSocket stream recorder. */
import WebSocket from 'ws';
import type { Emulator } from '../../tools/emulator/index.ts';
import { call, until } from './helpers.ts';

/** A voice of the `base` model every plan may use. */
export const BASE_VOICE = 'am_2riuownnf';
/** A voice of the `advanced` model every plan may use. */
export const ADVANCED_VOICE = 'af_adv_w3n8q1';

/** Submits a v3 generation and returns its id (throws on any answer but 200). */
export async function submitV3(
  emulator: Emulator,
  key: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const answer = await call(emulator, '/v3/tts', {
    key,
    body: { text: 'Hello from the version three emulator.', voice_id: BASE_VOICE, ...body },
  });
  if (answer.status !== 200)
    throw new Error(`v3 submit answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return (answer.json as { generation_id: string }).generation_id;
}

/** Waits until a v3 generation has ended (COMPLETED or FAILED). */
export function ended(emulator: Emulator, id: string): Promise<void> {
  return until(() => {
    const status = emulator.v3.generation(id)?.status;
    return status === 'COMPLETED' || status === 'FAILED';
  });
}

/** One frame a stream client received, in arrival order. */
export type Frame =
  | { kind: 'json'; message: Record<string, unknown> }
  | { kind: 'audio'; bytes: Buffer; statusOnArrival: string | undefined };

/** What a stream client saw: frames in order and the close code. */
export interface StreamRun {
  frames: Frame[];
  closeCode: number;
  /** The `started` frame's generation id, if one came. */
  generationId: string | undefined;
  /** A socket error the client saw, if any. */
  error?: string;
}

/** Frames of one kind. */
export function audioOf(run: StreamRun): Buffer[] {
  return run.frames.flatMap((f) => (f.kind === 'audio' ? [f.bytes] : []));
}

/** JSON messages in order. */
export function messagesOf(run: StreamRun): Record<string, unknown>[] {
  return run.frames.flatMap((f) => (f.kind === 'json' ? [f.message] : []));
}

/**
 * Opens the stream with `key` in the query, sends `request` (JSON, or a raw string), and
 * records every frame with the generation's status when audio arrived, until the close.
 */
export function stream(
  emulator: Emulator,
  key: string | undefined,
  request: Record<string, unknown> | string,
  options: { onFrame?: (frame: Frame, socket: WebSocket) => void } = {},
): Promise<StreamRun> {
  const query = key === undefined ? '' : `?api_key=${encodeURIComponent(key)}`;
  const socket = new WebSocket(`${emulator.v3.streamUrl}${query}`);
  const run: StreamRun = { frames: [], closeCode: 0, generationId: undefined };
  socket.on('open', () => {
    socket.send(typeof request === 'string' ? request : JSON.stringify(request));
  });
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    let frame: Frame;
    if (isBinary) {
      const id = run.generationId;
      const statusOnArrival = id === undefined ? undefined : emulator.v3.generation(id)?.status;
      frame = { kind: 'audio', bytes: Buffer.from(data), statusOnArrival };
    } else {
      const message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      if (message.type === 'started') run.generationId = String(message.generation_id);
      frame = { kind: 'json', message };
    }
    run.frames.push(frame);
    options.onFrame?.(frame, socket);
  });
  return new Promise((resolve) => {
    // An abrupt end ('stream-cut', 'stream-drop') may also raise an error; 'close' (1006) follows.
    socket.on('error', (error) => {
      run.error = error.message;
    });
    socket.on('close', (code: number) => {
      run.closeCode = code;
      resolve(run);
    });
  });
}
