/**
 * Chat turns on the speaking path (the chat reader): the voice an author's messages are read
 * in, with the author's chat share checked; turns queued with their text decided only when
 * they generate, streamed live where the key's API streams as `/say`'s voice items are; each
 * generation recorded in the usage ledger. Not journalled: nothing is owed to a chat after a
 * restart (its messages are past `max-age` by then).
 */
import { randomUUID } from 'node:crypto';
import { voiceLanguages, voicesSpeaking } from '../speech/index.ts';
import { CHAT_LEDGER_ID } from '../store/index.ts';
import type { GenerationCost, SpeechRequest, Voice } from '../tts/index.ts';
import type { SpeakUpdate, SpeechSource } from '../voice/index.ts';
import { AutoVoices } from './auto-voices.ts';
import type { BlockedWords } from './blocked-words.ts';
import { mergeSavingMicros, predictedBill } from './budget.ts';
import { defaultChoice, pickVoice, speechLanguage } from './choose.ts';
import type { SpeakingContext } from './context.ts';
import { LiveStreams, PCM_HINT } from './live-streams.ts';
import { memberDailyShare } from './quota.ts';
import { queueRefusal } from './refusals.ts';
import type { ChatGenerateOptions, ChatVoice, LiveChatVoice, Queued, Requester } from './types.ts';
import { assignableVoices } from './voice-assignment.ts';

/** One chat turn for the voice queue: what `/queue` shows, and the source that makes its audio. */
export interface ChatTurnRequest {
  readonly guildId: string;
  readonly requester: Pick<Requester, 'id' | 'name'>;
  /** What `/queue` shows for the turn. */
  readonly text: string;
  readonly source: SpeechSource;
}

/** The chat reader's side of the speaking service. */
export class ChatTurns {
  readonly #context: SpeakingContext;
  readonly #auto: AutoVoices;
  readonly #blocked: BlockedWords;

  constructor(context: SpeakingContext, blocked: BlockedWords) {
    this.#context = context;
    this.#blocked = blocked;
    this.#auto = new AutoVoices(
      context.options.voiceAssignments,
      context.logger,
      context.options.clock,
    );
  }

  /**
   * The voice `author`'s messages are read in: theirs, else with `voices: auto` one of their own
   * among the key's voices (see `assignVoice`), else the server's default, as `/say` picks it
   * (`author.voiceId`, chosen in Twitch chat, counts as theirs). Refused with a UserError when
   * the server has no key, when the author's chat generations today reached the server's chat
   * share (`chat-daily`, else `/say`'s share), or when the server's daily budget is spent (the
   * reader then stops reading). With the line's `text`, the voice reads in its language (see
   * `speechLanguage`), and its key tells it apart, so a turn merges only lines of one language.
   */
  async voiceOf(
    guildId: string,
    author: Pick<Requester, 'id' | 'name'> & { readonly voiceId?: string },
    text?: string,
  ): Promise<ChatVoice> {
    const { settings, dailyLimit } = this.#context.options;
    const client = await this.#context.clientFor(guildId, false);
    const [guild, stored] = await Promise.all([settings.guild(guildId), settings.user(author.id)]);
    // A voice chosen where the author chats (Twitch's `!voice`) comes before anything else.
    const user = author.voiceId === undefined ? stored : { ...stored, voiceId: author.voiceId };
    const { chatDaily, memberDaily } = guild.limits;
    const share = memberDailyShare(chatDaily ?? memberDaily, dailyLimit);
    await this.#context.spending.check(guildId, { id: author.id, canManage: false }, share);
    await this.#context.spending.checkBudget(guildId, guild.limits.dailyBudgetMicros);
    const choice = defaultChoice(user, guild.defaults);
    const voices = await client.voices(choice.model);
    const language =
      text === undefined
        ? undefined
        : speechLanguage(
            text,
            choice.model,
            client.controls,
            this.#context.options.detectLanguage,
            {
              user,
              guild: guild.defaults,
            },
          );
    const auto =
      user.voiceId === undefined && guild.reader.voices === 'auto'
        ? await this.#autoVoice(guildId, author.id, voices, language)
        : undefined;
    const voice = pickVoice(voices, auto ?? choice.voiceId, choice.model, language);
    // A speed the API would not apply (v3's Advanced) is left out, so the reader never counts on it.
    const speeds = client.controls.speed(choice.model);
    const request: Omit<SpeechRequest, 'text'> = {
      voiceId: voice.voiceId,
      model: choice.model,
      ...(choice.speed === undefined || !speeds ? {} : { speed: choice.speed }),
      ...(language === undefined ? {} : { language }),
    };
    const requestOf = (text: string, options: ChatGenerateOptions): SpeechRequest => ({
      ...request,
      text,
      ...(options.speed === undefined || !speeds ? {} : { speed: options.speed }),
    });
    // The streams this voice handed out, until their turns play or let them go.
    const streams = new LiveStreams(this.#context.options.decodePcm);
    const live: LiveChatVoice = {
      generate: (text, options) =>
        this.#generate(guildId, requestOf(text, options), options, streams),
      rawFormatOf: (audioUrl) => (audioUrl === undefined ? PCM_HINT : streams.formatOf(audioUrl)),
    };
    return {
      key: [client.keyId, request.voiceId, request.model, request.speed ?? 1, language ?? ''].join(
        '|',
      ),
      request,
      speeds,
      // What paces chat turns: v2's generations, or v3's one allowance of requests (it has no
      // generation limit of its own); the other op has no windows, so both are asked.
      usage: async () => [...(await client.usage('generate')), ...(await client.usage('request'))],
      generate: (text, options) => this.#generate(guildId, requestOf(text, options), options),
      ...(client.streams ? { live } : {}),
      open: (audioUrl, signal) => streams.open(client, audioUrl, signal),
    };
  }

  /**
   * A chatter's automatic voice (see `assignVoice`) for a line in `language`: theirs, unless the
   * voice list tells of voices that speak the language and theirs is not one; then one of those,
   * kept for them and that language as their own is (their own stays for their other lines).
   */
  async #autoVoice(
    guildId: string,
    chatter: string,
    voices: readonly Voice[],
    language: string | undefined,
  ): Promise<string | undefined> {
    const own = await this.#auto.voiceFor(guildId, chatter, assignableVoices(voices));
    const speaking = voicesSpeaking(voices, language);
    const ownVoice = voices.find((voice) => voice.voiceId === own);
    if (language === undefined || speaking === undefined || ownVoice === undefined) return own;
    if (voiceLanguages(ownVoice).includes(language)) return own;
    const pool = assignableVoices(speaking);
    if (pool.length === 0) return own;
    return (await this.#auto.voiceFor(guildId, `${chatter}@${language}`, pool)) ?? own;
  }

  /** The server was forgotten: the chatters' voices it held in memory go too. */
  forget(guildId: string): Promise<void> {
    return this.#auto.forget(guildId);
  }

  /**
   * Queues a turn whose text is decided only when its generation starts: `source` makes the
   * audio then (the reader takes whatever chat waits at that moment, so a busy chat merges)
   * and opens it when it plays. Throws a UserError when refused.
   */
  speak(turn: ChatTurnRequest, onUpdate: (update: SpeakUpdate) => void): Queued {
    const outcome = this.#context.options.voice.speak({
      guildId: turn.guildId,
      requesterId: turn.requester.id,
      requesterName: turn.requester.name,
      text: turn.text,
      source: turn.source,
      onUpdate,
    });
    if (outcome.ok) return { itemId: outcome.itemId, position: outcome.position };
    throw queueRefusal(outcome, 'not_in_voice');
  }

  // Generates with the server's key of this moment (a key replaced meanwhile is never used
  // again). Recorded under the author when the turn is one author's, else under the chat as a
  // whole: a merged generation is nobody's alone, and splitting it would overcount the server.
  // With `streams`, the turn is streamed where the key's API streams (the backup file feeds the
  // speech cache; a stream failing before its first chunk falls back to submit-and-poll), and
  // a live stream is held there until the turn plays or `options.signal` lets it go.
  // The turn's text is screened as composed (see `BlockedWords`): bleeped, or with `blocked:
  // skip` the whole turn is refused, as `/say` is. Dropping only the messages that spell the
  // word would mean mapping the span back through the composition, for a case (a word spread
  // over messages or a name) that passed every message's own screen and is rare unless sought.
  async #generate(
    guildId: string,
    asked: SpeechRequest,
    options: ChatGenerateOptions,
    streams?: LiveStreams,
  ): Promise<string> {
    const guild = await this.#context.options.settings.guild(guildId);
    const text = this.#blocked.screen(guildId, guild, asked.text, asked.language);
    const request = { ...asked, text };
    const client = await this.#context.clientFor(guildId, false);
    const authors = new Set(options.authors);
    const [only] = authors;
    const payer = authors.size === 1 && only !== undefined ? only : CHAT_LEDGER_ID;
    // One generation making this audio is paid once, a stream that failed and was submitted again included.
    const attempt = randomUUID();
    const { spending } = this.#context;
    // The turn's text is known only now: its predicted cost is held against the daily budget.
    const budget = guild.limits.dailyBudgetMicros;
    await spending.reserveMoney(guildId, attempt, budget, predictedBill(client, request));
    const generate = {
      signal: options.signal,
      // Audio the cache gave this turn, gone when it plays, is made again: held and paid as this.
      holdAgain: () => spending.holdAgain(guildId, attempt, budget, predictedBill(client, request)),
      onSubmitted: async (generationId: string, cost?: GenerationCost) => {
        options.onSubmitted?.();
        const bill =
          cost === undefined
            ? undefined
            : { ...cost, savedMicros: mergeSavingMicros(options.alone ?? [], cost) };
        await spending.record(guildId, payer, generationId, attempt, bill);
      },
    };
    try {
      if (streams === undefined) return (await client.generate(request, generate)).audioUrl;
      return streams.hold(await client.live(request, generate), options.signal);
    } finally {
      spending.release(attempt);
    }
  }
}
