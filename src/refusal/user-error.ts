/**
 * Refusals: what a member is told they cannot do, and why, as a message id and its
 * parameters. The domain (`src/speech`, `src/speaking`, `src/reader`) raises them;
 * `src/discord` renders them in the member's language (`describeFailure`).
 */
import { english, type MessageKey, type MessageParams, type Translator } from '../i18n/index.ts';

type ErrorKey = Extract<MessageKey, `errors.${string}`>;

/** Identifiers of failures a user can act on: each is a message key `errors.<id>` in the translation files. */
export type UserErrorId = Exclude<ErrorKey extends `errors.${infer Id}` ? Id : never, 'unexpected'>;

/** What the message of a failure needs: the parameters of its `errors.<id>` text. */
export type UserErrorContext<Id extends UserErrorId> = MessageParams[`errors.${Id}`];

/**
 * An expected failure with the next step for the user; shown ephemerally to them only,
 * in their language (`describeFailure`). `message` is the English text, for logs.
 */
export class UserError<Id extends UserErrorId = UserErrorId> extends Error {
  override readonly name = 'UserError';
  readonly id: Id;
  readonly context: UserErrorContext<Id>;

  constructor(id: Id, context: UserErrorContext<Id>, options?: ErrorOptions) {
    super(errorText(english.t, id, context), options);
    this.id = id;
    this.context = context;
  }
}

/** Refusals whose context carries an instant: rendered as a Discord timestamp each reader sees in their own time and language. */
interface TimedRefusals {
  readonly member_queue_full: { readonly max: number; readonly freesAt: number };
  readonly member_daily_limit: { readonly share: number; readonly freesAt: number };
}

/** A refusal that says when it frees up, as the UserError shown to the member. */
export function userRefusal<Id extends keyof TimedRefusals>(
  id: Id,
  context: TimedRefusals[Id],
): UserError {
  const when = `<t:${Math.ceil(context.freesAt / 1000)}:R>`;
  if (id === 'member_queue_full') {
    const { max } = context as TimedRefusals['member_queue_full'];
    return new UserError('member_queue_full', { count: max, when });
  }
  const { share } = context as TimedRefusals['member_daily_limit'];
  return new UserError('member_daily_limit', { share, when });
}

/** The text of a user error in one translator's language. */
export function errorText<Id extends UserErrorId>(
  t: Translator['t'],
  id: Id,
  context: UserErrorContext<Id>,
): string {
  return (t as (key: MessageKey, params: object) => string)(`errors.${id}` as MessageKey, context);
}
