/**
 * Voice previews on the speaking path: the server's key, the voice, the member's daily share
 * for a sample not stored yet (recorded in the ledger like a `/say`), and where the sample
 * plays. Not journalled: a sample is stored once made, and a preview asked again costs nothing.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { PREVIEW_TEXT, type PreviewAudio } from '../preview/index.ts';
import { UserError } from '../refusal/index.ts';
import { codeSpan, findVoice } from '../speech/index.ts';
import type { Model, TtsClient, Voice } from '../tts/index.ts';
import { predictedBill } from './budget.ts';
import type { RequestChecks } from './checks.ts';
import type { SpeakingContext } from './context.ts';
import { queueRefusal } from './refusals.ts';
import type { PreviewInput, PreviewResult } from './types.ts';

/** Answers previews for the speaking service. */
export class Previews {
  readonly #context: SpeakingContext;
  readonly #checks: RequestChecks;

  constructor(context: SpeakingContext, checks: RequestChecks) {
    this.#context = context;
    this.#checks = checks;
  }

  /**
   * The voice's sample (generated once per key and voice, then read from the store), queued in
   * voice when the bot is in the requester's channel. Throws a UserError when refused.
   */
  async preview(input: PreviewInput): Promise<PreviewResult> {
    const { settings, previews, voice: voices } = this.#context.options;
    const { guildId, requester } = input;
    const client = await this.#context.clientFor(guildId, requester.canManage);
    const model =
      input.model ??
      ((await settings.guild(guildId)).defaults.model === 'advance' ? 'advance' : 'base');
    const voice = findVoice(await client.voices(model), input.voiceId);
    if (voice === undefined) {
      throw new UserError('voice_not_found', { voice: codeSpan(input.voiceId, 50), model });
    }
    const { audio, cached } = await previews.get(
      { keyId: client.keyId, model, voiceId: voice.voiceId },
      () => this.#generate(input, client, voice, model),
    );
    const channelId = voices.channelOf(guildId);
    if (channelId === undefined || channelId !== input.requesterChannelId) {
      return { voice, audio, cached, channelId: undefined };
    }
    this.#play(input, audio);
    return { voice, audio, cached, channelId };
  }

  // A sample not stored yet costs a generation: counted against the member's daily share and
  // the server's daily budget, and recorded for them once the API accepts it.
  async #generate(
    input: PreviewInput,
    client: TtsClient,
    voice: Voice,
    model: Model,
  ): Promise<PreviewAudio> {
    const { guildId, requester } = input;
    const { spending } = this.#context;
    const ticketId = randomUUID();
    await spending.reserve(guildId, requester, await this.#checks.memberShareOf(guildId), ticketId);
    try {
      const request = { text: PREVIEW_TEXT, voiceId: voice.voiceId, model };
      const guild = await this.#context.options.settings.guild(guildId);
      await spending.reserveMoney(
        guildId,
        ticketId,
        guild.limits.dailyBudgetMicros,
        predictedBill(client, request),
      );
      const budget = guild.limits.dailyBudgetMicros;
      const { generationId, audioUrl } = await client.generate(request, {
        onSubmitted: (id, cost) => spending.record(guildId, requester.id, id, ticketId, cost),
        holdAgain: () =>
          spending.holdAgain(guildId, ticketId, budget, predictedBill(client, request)),
      });
      const downloaded = await client.download(audioUrl);
      return { generationId, ...downloaded };
    } finally {
      spending.release(ticketId);
    }
  }

  // Queues the stored sample like any speech (fair turn, `/skip` works); its source reads the
  // stored bytes, so nothing is generated.
  #play(input: PreviewInput, audio: PreviewAudio): void {
    const { logger } = this.#context;
    const outcome = this.#context.options.voice.speak({
      guildId: input.guildId,
      requesterId: input.requester.id,
      requesterName: input.requester.name,
      text: PREVIEW_TEXT,
      source: {
        generate: async () => `stored-preview:${audio.generationId}`,
        // The stored sample was sniffed when it was downloaded: its extension names its format.
        open: async () => ({ stream: Readable.from([audio.bytes]), extension: audio.extension }),
      },
      onUpdate: (update) => {
        if (update.state === 'failed')
          logger.warn({ err: update.error }, 'preview playback failed');
      },
    });
    if (!outcome.ok) throw queueRefusal(outcome, 'left_voice');
  }
}
