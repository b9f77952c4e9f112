export {
  answerLanguageAutocomplete,
  answerVoiceAutocomplete,
  answerVoiceTraitAutocomplete,
} from './autocomplete.ts';
export { createDiscordClient, MESSAGE_CONTENT_REFUSED } from './client.ts';
export { type ApiVersion, type Command, type CommandContext, definitionOf } from './command.ts';
export { describeLimits, limitsSubcommand, runLimits } from './config-limits.ts';
export {
  describeForgetReport,
  FORGET_CANCEL_ID,
  FORGET_CONFIRM_ID,
  forgetQuestion,
} from './forget-reply.ts';
export {
  canManage,
  forListeners,
  guildClient,
  guildIdOf,
  requireListener,
  requireManager,
  serverVoice,
} from './guild.ts';
export { type CommandShape, type Help, helpFor, SETUP_STEPS } from './help.ts';
export { type ListGroup, listGroup } from './list-group.ts';
export { loadCommands } from './loader.ts';
export { described, guildCommand } from './localize.ts';
export { DisallowedIntentsError, DiscordConnectError, login } from './login.ts';
export { addMemberOptions, memberChangeOf } from './member-options.ts';
export { describeMemberChange, describeMemberView, describeSpokenName } from './member-reply.ts';
export { describeFailure } from './messages.ts';
export { memberVoiceChannel, mentionNames } from './names.ts';
export {
  BOT_PERMISSIONS,
  type BotPermission,
  INVITE_PERMISSIONS,
  INVITE_SCOPES,
  inviteUrl,
  missingPermissions,
  refuseMissing,
  requireAnswerPermissions,
  requireAppPermissions,
  requireBotPermissions,
  VOICE_PERMISSIONS,
} from './permissions.ts';
export { type PreviewChoice, sendPreview } from './preview-reply.ts';
export { ThrottledReply } from './progress.ts';
export { commandDefinitions, registerCommands } from './register.ts';
export { createRouter, reportFailure } from './router.ts';
export { DiscordSession } from './session.ts';
export { addSpeechOptions, speechChoicesOf } from './speech-options.ts';
export { captionOf, originOf, requesterOf, SayReply } from './speech-reply.ts';
export { partOf, type SubcommandPart, withParts } from './subcommands.ts';
export {
  formatPageId,
  formatPreviewMenuId,
  MAX_CUSTOM_ID_LENGTH,
  type Page,
  pageOf,
  parsePageId,
  parsePreviewMenuId,
  VOICES_PAGE_SIZE,
  type VoicesFilter,
  type VoicesPageState,
} from './voices-page.ts';
export { listVoices, voicesPage } from './voices-reply.ts';
export { discordWiring } from './wire.ts';
