/**
 * The one speaking path: every entrance (`/say`, previews, the chat reader, resumed requests)
 * asks {@link SpeakingService} with one call, and the service alone decides the voice, the
 * limits and refusals, the usage records and the journal.
 */
import { randomUUID } from 'node:crypto';
import type { FinishedGeneration, GenerateOptions, TtsClient } from '../tts/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import { BlockedWords } from './blocked-words.ts';
import { predictedBill } from './budget.ts';
import { type ChatTurnRequest, ChatTurns } from './chat.ts';
import { RequestChecks } from './checks.ts';
import { SpeakingContext, type SpeakingServiceOptions } from './context.ts';
import { Delivery } from './delivery.ts';
import { Previews } from './preview.ts';
import { Spending } from './spending.ts';
import type {
  AttachOptions,
  ChatVoice,
  PreparedSpeech,
  PreviewInput,
  PreviewResult,
  Queued,
  ReadySpeech,
  ReplayEnd,
  Requester,
  ResumedSpeech,
  SayOutcome,
  SpeechFollower,
  SpeechInput,
} from './types.ts';

/** Checks, voices, queues, generates and delivers speech for every entrance. */
export class SpeakingService {
  readonly #context: SpeakingContext;
  readonly #checks: RequestChecks;
  readonly #delivery: Delivery;
  readonly #previews: Previews;
  readonly #chat: ChatTurns;

  constructor(options: SpeakingServiceOptions) {
    const logger = options.logger.child({ component: 'speaking' });
    const spending = new Spending({ usage: options.usage, clock: options.clock, logger });
    this.#context = new SpeakingContext(options, logger, spending);
    const blocked = new BlockedWords(options.translatorOf, options.blocklists);
    this.#checks = new RequestChecks(this.#context, blocked);
    this.#delivery = new Delivery(this.#context);
    this.#previews = new Previews(this.#context, this.#checks);
    this.#chat = new ChatTurns(this.#context, blocked);
  }

  /**
   * A member's request (`/say`): checked, voiced and counted against their share, then queued in
   * voice (resolves once queued) or generated and handed over as a file (resolves once
   * delivered). `follower` hears what will be said, then how it goes. Throws a UserError when
   * refused, before `accepted` or, for a queue refusal, after it.
   */
  async say(input: SpeechInput, follower: SpeechFollower): Promise<SayOutcome> {
    const speech = await this.chooseVoice(await this.prepare(input));
    follower.accepted(speech);
    if (speech.output === 'voice') {
      return { output: 'voice', queued: this.speak(speech, (update) => follower.onUpdate(update)) };
    }
    await this.attach(speech, follower);
    return { output: 'file' };
  }

  /**
   * A voice preview (`/preview`, the `/voices` menu): the sample, generated once per key and
   * voice within the member's share, queued in voice when the bot is in their channel.
   */
  preview(input: PreviewInput): Promise<PreviewResult> {
    return this.#previews.preview(input);
  }

  /**
   * The voice a chat author's messages are read in, and how the reader generates its turns in
   * it (recorded in the usage ledger). Refused without a key, or once the author's chat share
   * (`chat-daily`, else `/say`'s share) is used up. `author.voiceId`: the voice they chose where
   * they chat (Twitch's `!voice`), before their `/myvoice` and the automatic one.
   */
  chatVoice(
    guildId: string,
    author: Pick<Requester, 'id' | 'name'> & { readonly voiceId?: string },
    text?: string,
  ): Promise<ChatVoice> {
    return this.#chat.voiceOf(guildId, author, text);
  }

  /** The server was forgotten: what the service holds of it in memory (chatters' voices) goes too. */
  forgetServer(guildId: string): Promise<void> {
    return this.#chat.forget(guildId);
  }

  /** Queues a chat turn whose text is decided when it generates. Throws a UserError when refused. */
  speakChat(turn: ChatTurnRequest, onUpdate: (update: SpeakUpdate) => void): Queued {
    return this.#chat.speak(turn, onUpdate);
  }

  /**
   * Submits a resumed request that never reached the API (an earlier run was stopped first),
   * with the server's key of now; recorded in the usage ledger for its requester once accepted.
   * Its predicted cost is held against the server's daily budget as any request's is (the
   * earlier run's hold went with it): refused with a UserError, before any submit, past it.
   */
  async resubmit(
    resumed: Pick<ResumedSpeech, 'guildId' | 'requesterId' | 'request'>,
    options: GenerateOptions,
  ): Promise<FinishedGeneration> {
    const { guildId, requesterId, request } = resumed;
    const { spending, options: context } = this.#context;
    const client = await this.#context.clientFor(guildId, false);
    const guild = await context.settings.guild(guildId);
    const ticketId = randomUUID();
    await spending.reserveMoney(
      guildId,
      ticketId,
      guild.limits.dailyBudgetMicros,
      predictedBill(client, request),
    );
    try {
      const budget = guild.limits.dailyBudgetMicros;
      return await client.generate(request, {
        ...options,
        holdAgain: () =>
          spending.holdAgain(guildId, ticketId, budget, predictedBill(client, request)),
        onSubmitted: async (generationId, cost) => {
          const recorded = spending.record(guildId, requesterId, generationId, ticketId, cost);
          await options.onSubmitted?.(generationId, cost);
          await recorded;
        },
      });
    } finally {
      spending.release(ticketId);
    }
  }

  /** Puts finished audio of a resumed voice request back in the queue; false when refused. */
  replay(
    resumed: ResumedSpeech,
    audio: { readonly audioUrl: string; readonly client: Pick<TtsClient, 'stream'> },
    onEnd: (end: ReplayEnd) => void,
  ): boolean {
    return this.#delivery.replay(resumed, audio, onEnd);
  }

  /**
   * Step one of {@link say}: every check that needs no TTS call (key, text and options,
   * output). Entrances call `say`; the steps are public for the service's own tests.
   */
  prepare(input: SpeechInput): Promise<PreparedSpeech> {
    return this.#checks.prepare(input);
  }

  /** Step two of {@link say}: the voice, and the hold on the requester's daily share. */
  chooseVoice(prepared: PreparedSpeech): Promise<ReadySpeech> {
    return this.#checks.chooseVoice(prepared);
  }

  /** Step three of {@link say} for voice: queues the speech; throws a UserError when refused. */
  speak(speech: ReadySpeech, onUpdate: (update: SpeakUpdate) => void): Queued {
    return this.#delivery.speak(speech, onUpdate);
  }

  /** Step three of {@link say} for files: generates, downloads and hands over the audio. */
  attach(speech: ReadySpeech, options: AttachOptions): Promise<void> {
    return this.#delivery.attach(speech, options);
  }

  /**
   * Generations per member per day in force on the server (its `/config limits` setting, else
   * the default share); undefined when there is none. Members with Manage Server are exempt.
   */
  memberShareOf(guildId: string): Promise<number | undefined> {
    return this.#checks.memberShareOf(guildId);
  }

  /**
   * What the server was billed today and its daily budget (micro-dollars) when a budget is set
   * and spent: speech and the chat reader are refused until the next UTC day. Else undefined.
   */
  async budgetSpent(
    guildId: string,
  ): Promise<{ readonly spent: number; readonly budget: number } | undefined> {
    const guild = await this.#context.options.settings.guild(guildId);
    return this.#context.spending.budgetSpent(guildId, guild.limits.dailyBudgetMicros);
  }

  /** The member's requests accepted but not yet submitted: counted against their daily share. */
  reservedFor(guildId: string, memberId: string): number {
    return this.#context.spending.reserved(guildId, memberId);
  }
}
