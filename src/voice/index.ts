/** Voice: connections, players and each guild's speech queue, behind `VoiceService`. */
export type { DisconnectCause } from './close-causes.ts';
export { VoiceLink, type VoiceLinkOptions } from './connection.ts';
export {
  type CrashGuardLogger,
  type GuardedProcess,
  installVoiceCrashGuard,
  isVoiceKeepAliveRace,
} from './crash-guard.ts';
export { createVoiceManager, type VoiceDependencies } from './create.ts';
export { destroyDeferred } from './deferred-destroy.ts';
export {
  DEFAULT_RECONNECT_POLICY,
  type LinkEvent,
  type LinkState,
  nextLinkState,
  type ReconnectPlan,
  type ReconnectPolicy,
  reconnectPlan,
} from './link-state.ts';
export { type LeaveReason, leaveNotice } from './notices.ts';
export { VoiceManager, type VoiceManagerOptions } from './service.ts';
export type {
  QueueEntry,
  SniffedAudio,
  SpeakOutcome,
  SpeakRequest,
  SpeakUpdate,
  SpeechSource,
  VoiceService,
  VoiceTarget,
} from './types.ts';
export { guardUdpSocket, guardVoiceConnection, isSocketNotRunning } from './udp-guard.ts';
