/**
 * What v3 bills (issue 31): the formula, the submit answer's `tokens` and `dollar_cost` parsed
 * into integer micro-dollars and handed to `onSubmitted`, and a stream (whose `started` frame
 * has no bill) billed at the price last seen, learned from its record when none was.
 */
import { describe, expect, test } from 'vitest';
import {
  billedChars,
  billedTokens,
  type GenerationCost,
  microsOf,
  PriceBook,
} from '../../src/tts/index.ts';
import { parseRecord } from '../../src/tts/v3/wire.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { sentence } from './emulated.ts';
import { v3ClientsFor, withEmulator } from './v3-emulated.ts';

describe('the bill of a text', () => {
  test.each([
    [0, 8],
    [1, 8],
    [30, 8],
    [31, 8],
    [32, 8],
    [33, 9],
    [100, 25],
    [5000, 1250],
  ])('%d characters are billed %d tokens', (chars, tokens) => {
    expect(billedTokens(chars)).toBe(tokens);
  });

  test('characters are code points, as the API counts them', () => {
    expect(billedChars('héllo 👋')).toBe(7);
  });

  test.each([
    [0.000008, 8],
    [0.00012, 120],
    [2.5, 2_500_000],
    [0.1 + 0.2, 300_000], // no float dust in micro-dollars
  ])('$%d is %d micro-dollars', (dollars, micros) => {
    expect(microsOf(dollars)).toBe(micros);
  });

  test('a price is learned per model and predicts a text, rounded up; none before', () => {
    const prices = new PriceBook();
    expect(prices.predict('base', 'hi')).toBeUndefined();
    prices.observe('base', { tokens: 8, micros: 3 });
    expect(prices.predict('base', 'hi')).toEqual({ tokens: 8, micros: 3 });
    expect(prices.predict('base', 'x'.repeat(100))).toEqual({ tokens: 25, micros: 10 }); // 9.375 up
    expect(prices.predict('advance', 'hi')).toBeUndefined();
  });

  test('the record’s tokens and dollar_cost are parsed; a record without them still parses', () => {
    const record = { generation_id: 'gen_1', status: 'IN_QUEUE' };
    expect(parseRecord({ ...record, tokens: 10, dollar_cost: 0.00001 }, 'x').cost).toEqual({
      tokens: 10,
      micros: 10,
    });
    expect(parseRecord(record, 'x').cost).toBeUndefined();
    expect(parseRecord({ ...record, tokens: 'ten', dollar_cost: null }, 'x').cost).toBeUndefined();
  });

  test.each([
    // tokens, dollar_cost as answered, the bill
    [10, '0.00001', { tokens: 10, micros: 10 }], // a decimal serialised as a string
    ['10', '8E-7', { tokens: 10, micros: 1 }], // Python's str(Decimal): rounded to the nearest
    [1250, 0.0125, { tokens: 1250, micros: 12_500 }],
    [8, 0.00000049, { tokens: 8, micros: 0 }], // under half a micro-dollar
    [8, -0.00001, undefined], // negative: no bill (the hold is recorded instead)
    [8, 1e300, undefined], // past any safe integer of micro-dollars
    [1e300, 0.5, undefined],
    [8, '12abc', undefined],
    [8, '', undefined],
    [8, 'NaN', undefined],
    [8, 'Infinity', undefined],
    [8, Number.POSITIVE_INFINITY, undefined],
    [8, '1e-6', { tokens: 8, micros: 1 }], // exponent form, as some serialisers write
    ['8', '1E+1', { tokens: 8, micros: 10_000_000 }],
    [8, ' 0.1 ', undefined], // padded: not a decimal as serialised; the hold is recorded
    [8, '0x10', undefined],
    [8, '-0', undefined],
    ['0x8', 0.1, undefined],
    [8.5, 0.1, undefined], // tokens are whole
    [8, -0, { tokens: 8, micros: 0 }], // JSON's -0 is nothing billed, not "-$0.00"
    [-0, 0, { tokens: 0, micros: 0 }],
  ])('tokens %j and dollar_cost %j are billed %j', (tokens, dollars, cost) => {
    const answered = { generation_id: 'gen_1', status: 'IN_QUEUE', tokens, dollar_cost: dollars };
    expect(parseRecord(answered, 'x').cost).toEqual(cost);
  });
});

describe('v3 bills through the client', () => {
  // 25 micro-dollars a base token: a price no default gives.
  const emu = withEmulator({ usdPerToken: 0.000025 });

  test('a submit hands its bill to onSubmitted, once; later texts are predicted at that price', async () => {
    const client = v3ClientsFor(emu(), { streaming: false }).clients.forKey(USER_ONE.apiKey);
    expect(client.billsMoney).toBe(true);
    const text = sentence(100);
    const request = { text, voiceId: 'am_2riuownnf', model: 'base' } as const;
    expect(client.predictCost(request)).toBeUndefined();
    const bills: (GenerationCost | undefined)[] = [];
    const done = await client.generate(request, {
      onSubmitted: (_id, cost) => void bills.push(cost),
    });
    const record = emu().v3.generation(done.generationId);
    const tokens = billedTokens(billedChars(text));
    expect(record?.tokens).toBe(tokens);
    expect(bills).toEqual([{ tokens, micros: microsOf(record?.dollarCost ?? -1) }]);
    expect(bills[0]?.micros).toBe(tokens * 25);
    expect(client.predictCost({ ...request, text: 'short' })).toEqual({ tokens: 8, micros: 200 });
  });

  test('a submit answered without a bill is billed at the key’s last price, never as free', async () => {
    let strip = false;
    // The answer of the second submit comes without tokens or dollar_cost.
    const fetcher: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!strip || init?.method !== 'POST') return response;
      const {
        tokens: _t,
        dollar_cost: _d,
        ...rest
      } = (await response.json()) as Record<string, unknown>;
      return Response.json(rest, { status: response.status, headers: response.headers });
    };
    const client = v3ClientsFor(emu(), { streaming: false, fetch: fetcher }).clients.forKey(
      USER_ONE.apiKey,
    );
    const request = { text: sentence(60), voiceId: 'am_2riuownnf', model: 'base' } as const;
    await client.generate(request); // the price: 25 µ$ a token
    strip = true;
    const bills: (GenerationCost | undefined)[] = [];
    const text = `Again: ${sentence(100)}`;
    await client.generate(
      { ...request, text },
      { onSubmitted: (_id, cost) => void bills.push(cost) },
    );
    const tokens = billedTokens(billedChars(text));
    expect(bills).toEqual([{ tokens, micros: tokens * 25 }]);
  });

  test('a stream is billed at the price learned from its record (one read), then at the price seen', async () => {
    const client = v3ClientsFor(emu(), { streaming: true }).clients.forKey(USER_ONE.apiKey);
    const bills: (GenerationCost | undefined)[] = [];
    for (const text of [sentence(60), `Another: ${sentence(90)}`]) {
      const speech = await client.live(
        { text, voiceId: 'am_2riuownnf', model: 'base' },
        { onSubmitted: (_id, cost) => void bills.push(cost) },
      );
      if (speech.kind === 'live') {
        speech.pcm.resume();
        await speech.finished;
      }
    }
    const streams = emu()
      .v3.generationsOf(USER_ONE.userId)
      .filter((g) => g.via === 'stream');
    expect(bills).toEqual(
      streams.map((g) => ({ tokens: g.tokens, micros: microsOf(g.dollarCost) })),
    );
    // The price was read once, from the first stream's record.
    expect(emu().counts()['GET /v3/tts']?.total).toBe(1);
  });
});
