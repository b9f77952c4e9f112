/** The shapes adapters (`/say`, previews, the chat reader, resuming) hand to the speaking service and get back. */
import type { RawPcmInput } from '../audio/index.ts';
import type { PreviewAudio } from '../preview/index.ts';
import type { ValidatedSay } from '../speech/index.ts';
import type { LimitUsage, Model, SpeechRequest, TtsClient, Voice } from '../tts/index.ts';
import type { SniffedAudio, SpeakUpdate } from '../voice/index.ts';

/** Longest text one request may speak (the API's limit). */
export const MAX_TEXT_LENGTH = 5000;

/** Who asked for speech. */
export interface Requester {
  readonly id: string;
  /** Their name as `/queue` shows it. */
  readonly name: string;
  /** Has Manage Server: told how to fix the key themselves. */
  readonly canManage: boolean;
}

/**
 * Where a request came from, kept with it so pending work can be delivered after a restart.
 * The service only passes it on (to the journal); adapters fill what they have.
 */
export interface SpeechOrigin {
  /** The text channel of the command or the message. */
  readonly channelId?: string | undefined;
  /** The interaction reply that shows the result: edit it while its token is valid. */
  readonly reply?: {
    readonly applicationId: string;
    readonly token: string;
    /** Epoch ms after which the token no longer works (15 min after the interaction). */
    readonly expiresAt: number;
  };
  /** The chat message being read aloud (chat reader). */
  readonly messageId?: string;
}

/** Options the requester chose; absent or null ones come from their and the server's defaults. */
export interface SpeechChoices {
  readonly voice?: string | null;
  readonly model?: string | null;
  readonly speed?: number | null;
  readonly emotion?: string | null;
}

/** Spoken in the voice channel, or generated and attached as a file. */
export type Output = 'voice' | 'file';

/** One request to speak, from any adapter. */
export interface SpeechInput {
  readonly guildId: string;
  readonly requester: Requester;
  /** What to speak, already made speakable by the adapter (mentions resolved, links named). */
  readonly text: string;
  readonly choices?: SpeechChoices;
  /** Absent: voice when the bot is in the requester's voice channel, else a file. */
  readonly output?: Output | undefined;
  /** The voice channel the requester is in, if any (decides the default output). */
  readonly requesterChannelId?: string | undefined;
  readonly origin?: SpeechOrigin;
}

/** A request that passed every check needing no TTS call: key, text, options, output. */
export interface PreparedSpeech {
  readonly input: SpeechInput;
  readonly output: Output;
  readonly validated: ValidatedSay;
  /** The server's client (its key's budgets and poller). */
  readonly client: TtsClient;
  /** Generations per member per day in force on the server; none when undefined. */
  readonly memberDaily: number | undefined;
  /** The server's daily budget in micro-dollars (v3); none when absent. */
  readonly dailyBudget?: number;
}

/** A prepared request with its voice chosen: exactly what goes to the API. */
export interface ReadySpeech extends PreparedSpeech {
  readonly voice: Voice;
  readonly request: SpeechRequest;
  /** Identifies the request from now on (journal, logs). */
  readonly ticket: SpeechTicket;
}

/** A request as a journal keeps it: plain data, no key, no client. */
export interface SpeechTicket {
  /** Unique per request. */
  readonly id: string;
  readonly guildId: string;
  readonly requesterId: string;
  readonly requesterName: string;
  readonly output: Output;
  readonly request: SpeechRequest;
  readonly origin: SpeechOrigin;
}

/** How a submitted request ended. */
export type SpeechEnd =
  | { readonly state: 'delivered' }
  | { readonly state: 'failed'; readonly error: unknown }
  | { readonly state: 'skipped' }
  | { readonly state: 'cancelled' };

/**
 * Where pending generations are recorded so they survive a restart. Each ticket that reaches
 * `queued` or `submitted` gets exactly one `settled`; tickets that reach neither get none.
 * A journal that throws is logged; speech goes on.
 */
export interface SpeechJournal {
  /**
   * A voice item joined the queue, before its turn to generate comes (it may wait there for
   * minutes); `settled` follows even when it ends without reaching the API.
   */
  queued?(ticket: SpeechTicket): Promise<void> | void;
  /** The API accepted the request as `generationId`; awaited before waiting for the audio. */
  submitted(ticket: SpeechTicket, generationId: string): Promise<void> | void;
  /** Nothing more will happen to the request: delivered (attached, or played to its end) or not. */
  settled(ticket: SpeechTicket, end: SpeechEnd): Promise<void> | void;
}

/** Where a file-mode request stands, for its progress reply. */
export type FileProgress =
  | {
      /** Waiting for one of the server's few file slots: `place` 1 goes next. */
      readonly stage: 'queued';
      readonly place: number;
    }
  | {
      readonly stage: 'waiting';
      /** Requests of this key still waiting for budget ahead of this one, now. */
      readonly ahead: () => number;
    }
  | { readonly stage: 'generating' }
  | { readonly stage: 'downloading' };

/** Generated audio, ready to attach. */
export interface SpeechFile {
  readonly generationId: string;
  readonly bytes: Buffer;
  readonly mime: string;
  readonly extension: string;
  /** Length of the audio, when it could be read. */
  readonly durationMs: number | undefined;
}

/** How a file-mode request is followed and handed over. */
export interface AttachOptions {
  /** Largest attachment the server allows, in bytes. */
  readonly maxBytes: number;
  readonly onProgress: (progress: FileProgress) => void;
  /** Hands the audio to the requester (e.g. edits the reply); the request counts as delivered once it resolves. */
  readonly deliver: (file: SpeechFile) => Promise<void>;
}

/** Where a voice request was queued. */
export interface Queued {
  readonly itemId: string;
  readonly position: number;
}

/**
 * How an adapter follows a request it handed to `say`: told once what will be said, then of
 * the voice item's changes, or of the file's progress and its hand-over.
 */
export interface SpeechFollower extends AttachOptions {
  /** Every check passed and the voice is chosen; called once, before any other call. */
  accepted(speech: ReadySpeech): void;
  /** A voice item's changes, ending with played, failed, skipped or cancelled. */
  onUpdate(update: SpeakUpdate): void;
}

/** What became of a request `say` took: queued in voice, or delivered as a file. */
export type SayOutcome =
  | { readonly output: 'voice'; readonly queued: Queued }
  | { readonly output: 'file' };

/** A voice preview asked for (`/preview`, the `/voices` menu). */
export interface PreviewInput {
  readonly guildId: string;
  readonly requester: Requester;
  readonly voiceId: string;
  /** The server's default model when absent. */
  readonly model?: Model | undefined;
  /** The voice channel the requester is in, if any: the sample plays there when the bot is too. */
  readonly requesterChannelId?: string | undefined;
}

/** A preview answered: the sample, and whether it was queued in voice or is the member's file. */
export interface PreviewResult {
  readonly voice: Voice;
  readonly audio: PreviewAudio;
  /** Read from the store: no generation was spent. */
  readonly cached: boolean;
  /** The voice channel the sample was queued in; undefined when the member gets the file. */
  readonly channelId: string | undefined;
}

/** The voice a chat author's messages are spoken in, and how a chat turn is generated in it. */
export interface ChatVoice {
  /** Messages merge only when this is equal (same key, voice, model and speed). */
  readonly key: string;
  /** The request without its text. */
  readonly request: Omit<SpeechRequest, 'text'>;
  /** The API applies speed with this voice's model (v3: Base only): a busy chat may be read faster. */
  readonly speeds: boolean;
  /** The key's generation budget now (the reader spaces its turns by it). */
  usage(): Promise<readonly LimitUsage[]>;
  /**
   * Generates a chat turn's text in this voice with the server's current key; resolves with the
   * audio's address. Recorded in the usage ledger once the API accepts it: under its author, or
   * the chat as a whole when `authors` are several. `onSubmitted` hears of the acceptance.
   */
  generate(text: string, options: ChatGenerateOptions): Promise<string>;
  /** Where the key's API streams (v3 with `TTS_STREAMING`): chat turns streamed live; absent otherwise. */
  readonly live?: LiveChatVoice;
  /** Opens a turn's audio for playback: a live stream's PCM, or a file, its format sniffed from the bytes. */
  open(audioUrl: string, signal: AbortSignal): Promise<SniffedAudio>;
}

/** How a chat turn is generated: for whom (the ledger), until when, and how fast. */
export interface ChatGenerateOptions {
  readonly authors: readonly string[];
  /** A merged turn's lines, each as it would be said alone: what merging saved is recorded. */
  readonly alone?: readonly string[];
  readonly signal: AbortSignal;
  readonly onSubmitted?: () => void;
  /** Faster than the voice's own speed: a busy chat catching up. */
  readonly speed?: number;
}

/** A chat voice's live variant: the turn's speech streamed, PCM from its first chunk on. */
export interface LiveChatVoice {
  /**
   * As {@link ChatVoice.generate}, resolving at the stream's first chunk with a live address
   * (or a file's, when the cache had it or the stream fell back to submit-and-poll). A live
   * stream is held until `open` takes it; `signal` aborting first destroys it and its PCM.
   */
  generate(text: string, options: ChatGenerateOptions): Promise<string>;
  /**
   * The raw PCM format of the audio at `audioUrl` when it is a live stream held (undefined: a
   * file); without an address, what this voice most likely gives, so ffmpeg starts ready for it.
   */
  rawFormatOf(audioUrl?: string): RawPcmInput | undefined;
}

/** A request journalled by an earlier run, as resuming hands it back to the speaking service. */
export interface ResumedSpeech {
  readonly guildId: string;
  readonly requesterId: string;
  readonly requesterName: string;
  readonly request: SpeechRequest;
}

/** How a replayed voice item ended. */
export type ReplayEnd = 'played' | 'failed' | 'skipped' | 'cancelled';
