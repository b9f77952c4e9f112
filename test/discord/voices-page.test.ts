import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  formatPageId,
  formatPreviewMenuId,
  MAX_CUSTOM_ID_LENGTH,
  pageOf,
  parsePageId,
  parsePreviewMenuId,
  type VoicesPageState,
} from '../../src/discord/voices-page.ts';

const items = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('pageOf', () => {
  test.each([
    { n: 0, requested: 0, index: 0, pages: 1, shown: [] },
    { n: 0, requested: 3, index: 0, pages: 1, shown: [] },
    { n: 10, requested: 0, index: 0, pages: 1, shown: items(10) },
    { n: 12, requested: 0, index: 0, pages: 2, shown: items(10) },
    { n: 12, requested: 1, index: 1, pages: 2, shown: [10, 11] },
    { n: 12, requested: 7, index: 1, pages: 2, shown: [10, 11] },
    { n: 12, requested: -1, index: 0, pages: 2, shown: items(10) },
    { n: 21, requested: 2, index: 2, pages: 3, shown: [20] },
  ])(
    '$n items, page $requested → page $index of $pages',
    ({ n, requested, index, pages, shown }) => {
      expect(pageOf(items(n), requested)).toEqual({ index, pages, shown });
    },
  );

  test('pages cover every item once, in order, none longer than the page size', () => {
    fc.assert(
      fc.property(fc.nat(200), fc.integer({ min: 1, max: 25 }), (n, size) => {
        const first = pageOf(items(n), 0, size);
        const all = Array.from({ length: first.pages }, (_, i) => pageOf(items(n), i, size));
        expect(all.flatMap((page) => page.shown)).toEqual(items(n));
        for (const page of all) expect(page.shown.length).toBeLessThanOrEqual(size);
      }),
    );
  });
});

describe('page button custom ids', () => {
  test.each<[VoicesPageState, string]>([
    [{ model: 'base', page: 1, gender: '', accent: '' }, 'voices:base:1::'],
    [
      { model: 'advance', page: 0, gender: 'Female', accent: 'British' },
      'voices:advance:0:Female:British',
    ],
    [{ model: 'base', page: 2, gender: 'a:b', accent: 'c\\d' }, 'voices:base:2:a\\:b:c\\\\d'],
  ])('%o is %s, and reads back', (state, id) => {
    expect(formatPageId(state)).toBe(id);
    expect(parsePageId(id)).toEqual(state);
  });

  test.each([
    // Ids written before filters were escaped read as they always did.
    ['voices:base:1:Male:American', { model: 'base', page: 1, gender: 'Male', accent: 'American' }],
    // The disabled "previous" button of the first page.
    ['voices:advance:-1::', { model: 'advance', page: 0, gender: '', accent: '' }],
    ['voices:xyz:abc', { model: 'base', page: 0, gender: '', accent: '' }],
    ['voices', { model: 'base', page: 0, gender: '', accent: '' }],
    ['voices:base:1:x\\', { model: 'base', page: 1, gender: 'x\\', accent: '' }],
  ])('%s reads as %o', (id, state) => {
    expect(parsePageId(id)).toEqual(state);
  });

  const model = fc.constantFrom('base' as const, 'advance' as const);

  test('an id reads back as the state it was made from, within 100 characters', () => {
    // The options allow 20 characters per filter; pages stay below 1000 (10 000 voices).
    const filter = fc.string({ maxLength: 20, unit: 'binary' }).filter((s) => s.length <= 20);
    const state = fc.record({ model, page: fc.nat(999), gender: filter, accent: filter });
    fc.assert(
      fc.property(state, (s) => {
        const id = formatPageId(s);
        expect(id.length).toBeLessThanOrEqual(MAX_CUSTOM_ID_LENGTH);
        expect(parsePageId(id)).toEqual(s);
      }),
      { numRuns: 500 },
    );
  });

  test('any state, however long, gives an id of at most 100 characters that reads back its model and page', () => {
    const long = fc.string({ maxLength: 200, unit: 'binary' });
    const state = fc.record({ model, page: fc.nat(1_000_000), gender: long, accent: long });
    fc.assert(
      fc.property(state, (s) => {
        const id = formatPageId(s);
        expect(id.length).toBeLessThanOrEqual(MAX_CUSTOM_ID_LENGTH);
        const back = parsePageId(id);
        expect({ model: back.model, page: back.page }).toEqual({ model: s.model, page: s.page });
        expect(s.gender.startsWith(back.gender)).toBe(true);
        expect(s.accent.startsWith(back.accent)).toBe(true);
      }),
    );
  });
});

describe('preview menu custom ids', () => {
  test.each([
    ['base', 'voices:preview:base'],
    ['advance', 'voices:preview:advance'],
  ] as const)('%s is %s, and reads back', (model, id) => {
    expect(formatPreviewMenuId(model)).toBe(id);
    expect(parsePreviewMenuId(id)).toBe(model);
  });

  test('an id naming no model reads as base', () => {
    expect(parsePreviewMenuId('voices:preview')).toBe('base');
    expect(parsePreviewMenuId('voices:preview:other')).toBe('base');
  });
});
