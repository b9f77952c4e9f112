/** Identifiers of failures a user can act on; each has one message in messages.ts. */
export type UserErrorId =
  | 'no_api_key'
  | 'not_in_guild'
  | 'missing_permission'
  | 'invalid_input'
  | 'voice_not_found'
  | 'not_in_voice'
  | 'queue_full'
  | 'nothing_playing'
  | 'unknown_command'
  | 'too_large'
  | 'key_unreadable'
  | 'voice_unavailable'
  | 'member_queue_full'
  | 'member_daily_limit';

/** An expected failure with the next step for the user; shown ephemerally to them only. */
export class UserError extends Error {
  override readonly name = 'UserError';
  readonly id: UserErrorId;

  constructor(id: UserErrorId, message: string, options?: ErrorOptions) {
    super(message, options);
    this.id = id;
  }
}
