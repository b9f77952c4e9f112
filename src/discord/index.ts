export type { Command, CommandContext } from './command.ts';
export { canManage, guildClient, guildIdOf, requireManager } from './guild.ts';
export { loadCommands } from './loader.ts';
export { describeFailure } from './messages.ts';
export { ThrottledReply } from './progress.ts';
export { registerCommands } from './register.ts';
export { createRouter, reportFailure } from './router.ts';
export { UserError, type UserErrorId } from './user-error.ts';
