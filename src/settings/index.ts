/**
 * A server's configuration as the bot's parts use it, below Discord: its key (and the client
 * for it), defaults and what changing them means. `/config` renders; the speaking service and
 * resuming ask for the server's client here.
 */
export { type KeyServices, serverClient } from './key.ts';
export { type LimitsInput, saveLimits } from './limits.ts';
export {
  changeMember,
  isEmptyChange,
  type MemberChange,
  type MemberStores,
  type MemberView,
  memberAfter,
  memberView,
  RESET_SCOPES,
  type ResetScope,
  setSpokenName,
  userAfter,
} from './member.ts';
export {
  type ConfigServices,
  type ConfigSummary,
  checkLanguage,
  configSummary,
  type DefaultsInput,
  describeDefaults,
  describeSummary,
  mergeDefaults,
  removeApiKey,
  saveApiKey,
  saveDefaults,
} from './server-config.ts';
