export {
  errorText,
  UserError,
  type UserErrorContext,
  type UserErrorId,
  userRefusal,
} from './user-error.ts';
