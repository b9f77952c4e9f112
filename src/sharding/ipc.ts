/**
 * Requests between the shard manager and its shard processes over the
 * discord.js IPC channel: the manager asks, each shard answers. Our messages
 * carry a `ttsOps` tag, so discord.js's own (`_eval`, `_ready`…) pass untouched.
 */

/** What the manager may ask a shard. */
export type ShardQuestion = 'metrics' | 'ready';

/** One end of an IPC channel: a child `process`, or the manager's `Shard`. */
export interface IpcPort {
  send(message: unknown): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

interface Request {
  readonly ttsOps: 'request';
  readonly id: number;
  readonly question: ShardQuestion;
}

type Reply =
  | { readonly ttsOps: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly ttsOps: 'reply'; readonly id: number; readonly ok: false; readonly error: string };

function isRequest(message: unknown): message is Request {
  return (message as Partial<Request> | null)?.ttsOps === 'request';
}

function isReply(message: unknown): message is Reply {
  return (message as Partial<Reply> | null)?.ttsOps === 'reply';
}

/** In a shard: answers the manager's questions with `answer`; returns a function that stops. */
export function answerManager(
  port: IpcPort,
  answer: (question: ShardQuestion) => Promise<unknown>,
): () => void {
  const listener = (message: unknown) => {
    if (!isRequest(message)) return;
    const { id, question } = message;
    answer(question).then(
      (value) => port.send({ ttsOps: 'reply', id, ok: true, value } satisfies Reply),
      (error: unknown) =>
        port.send({
          ttsOps: 'reply',
          id,
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        } satisfies Reply),
    );
  };
  port.on('message', listener);
  return () => port.off('message', listener);
}

let nextId = 0;

/** In the manager: asks one shard and resolves with its answer; rejects on error or after `timeoutMs`. */
export function askShard(
  port: IpcPort,
  question: ShardQuestion,
  timeoutMs: number,
): Promise<unknown> {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      port.off('message', listener);
      reject(new Error(`no answer to "${question}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (message: unknown) => {
      if (!isReply(message) || message.id !== id) return;
      clearTimeout(timer);
      port.off('message', listener);
      if (message.ok) resolve(message.value);
      else reject(new Error(message.error));
    };
    port.on('message', listener);
    try {
      // A shard that is down (respawning) cannot be asked: fail now, not at the timeout.
      Promise.resolve(port.send({ ttsOps: 'request', id, question } satisfies Request)).catch(
        (error: unknown) => {
          clearTimeout(timer);
          port.off('message', listener);
          reject(error);
        },
      );
    } catch (error) {
      clearTimeout(timer);
      port.off('message', listener);
      reject(error);
    }
  });
}
