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

/** The text of a user error in one translator's language. */
export function errorText<Id extends UserErrorId>(
  t: Translator['t'],
  id: Id,
  context: UserErrorContext<Id>,
): string {
  return (t as (key: MessageKey, params: object) => string)(`errors.${id}` as MessageKey, context);
}
