/**
 * Deciding a request before anything is generated: the server's key, the text and options with
 * the requester's and the server's defaults, where the speech goes, the voice, and the daily
 * share it is counted against.
 */
import { randomUUID } from 'node:crypto';
import { type ValidatedSay, validateSay, withinControls } from '../speech/index.ts';
import type { GuildSettings } from '../store/index.ts';
import type { SpeechRequest } from '../tts/index.ts';
import type { BlockedWords } from './blocked-words.ts';
import { predictedBill } from './budget.ts';
import { chooseOutput, pickVoice, speechLanguage } from './choose.ts';
import type { SpeakingContext } from './context.ts';
import { memberDailyShare } from './quota.ts';
import {
  MAX_TEXT_LENGTH,
  type PreparedSpeech,
  type ReadySpeech,
  type SpeechInput,
  type SpeechTicket,
} from './types.ts';

/** The checks every request passes, in order; each throws a UserError saying what to fix. */
export class RequestChecks {
  readonly #context: SpeakingContext;
  readonly #blocked: BlockedWords;

  constructor(context: SpeakingContext, blocked: BlockedWords) {
    this.#context = context;
    this.#blocked = blocked;
  }

  /**
   * Every check that needs no TTS call: the server's key, the text and options (with the
   * requester's and the server's defaults), and where the speech goes.
   */
  async prepare(input: SpeechInput): Promise<PreparedSpeech> {
    const { settings, voice } = this.#context.options;
    const client = await this.#context.clientFor(input.guildId, input.requester.canManage);
    const [guild, user] = await Promise.all([
      settings.guild(input.guildId),
      settings.user(input.requester.id),
    ]);
    const choices = input.choices ?? {};
    const checked = validateSay(
      {
        text: input.text,
        voice: choices.voice ?? null,
        model: choices.model ?? null,
        speed: choices.speed ?? null,
        emotion: choices.emotion ?? null,
      },
      input.text,
      { user, guild: guild.defaults },
      { min: this.#context.options.minTextLength, max: MAX_TEXT_LENGTH },
      client.controls,
    );
    const asked = { speed: choices.speed != null };
    // Read in the language of the text as typed, before any word is bleeped.
    const language = speechLanguage(
      checked.text,
      checked.model,
      client.controls,
      this.#context.options.detectLanguage,
      { user, guild: guild.defaults },
    );
    const validated = this.#screen(input.guildId, guild, {
      ...withinControls(client.controls, checked, asked),
      language,
    });
    const output = chooseOutput(
      input.output,
      voice.channelOf(input.guildId),
      input.requesterChannelId,
    );
    const memberDaily = memberDailyShare(
      guild.limits.memberDaily,
      this.#context.options.dailyLimit,
    );
    const budget = guild.limits.dailyBudgetMicros;
    return {
      input,
      output,
      validated,
      client,
      memberDaily,
      ...(budget === undefined || budget === 0 ? {} : { dailyBudget: budget }),
    };
  }

  // The server's blocked words: with `blocked: skip` a text holding one is refused (the member
  // is told privately and can reword it), with `bleep` it is said with a "beep" in its place.
  // Either way nothing blocked reaches the TTS API: this is the text it is sent.
  #screen(guildId: string, guild: GuildSettings, validated: ValidatedSay): ValidatedSay {
    const { text, language } = validated;
    return { ...validated, text: this.#blocked.screen(guildId, guild, text, language) };
  }

  /**
   * Chooses the voice from the server's (cached) voice list, and counts the request against
   * the requester's daily share (refused with when it frees up once it is used).
   */
  async chooseVoice(prepared: PreparedSpeech): Promise<ReadySpeech> {
    const { validated, input, output } = prepared;
    const voice = pickVoice(
      await prepared.client.voices(validated.model),
      validated.voiceId,
      validated.model,
      validated.language,
    );
    const request: SpeechRequest = {
      text: validated.text,
      voiceId: voice.voiceId,
      model: validated.model,
      ...(validated.speed === undefined ? {} : { speed: validated.speed }),
      ...(validated.emotion === undefined ? {} : { emotion: validated.emotion }),
      ...(validated.language === undefined ? {} : { language: validated.language }),
    };
    const ticket: SpeechTicket = {
      id: randomUUID(),
      guildId: input.guildId,
      requesterId: input.requester.id,
      requesterName: input.requester.name,
      output,
      request,
      origin: input.origin ?? {},
    };
    const { spending } = this.#context;
    await spending.reserve(input.guildId, input.requester, prepared.memberDaily, ticket.id);
    try {
      // The server's money: everyone's, so nobody is exempt (an admin raises the budget).
      await spending.reserveMoney(
        input.guildId,
        ticket.id,
        prepared.dailyBudget,
        predictedBill(prepared.client, request),
      );
    } catch (error) {
      spending.release(ticket.id);
      throw error;
    }
    return { ...prepared, voice, request, ticket };
  }

  /**
   * Generations per member per day in force on the server for `/say` and previews (its
   * `/config limits` setting, else the default share); undefined when there is none.
   */
  async memberShareOf(guildId: string): Promise<number | undefined> {
    const guild = await this.#context.options.settings.guild(guildId);
    return memberDailyShare(guild.limits.memberDaily, this.#context.options.dailyLimit);
  }
}
