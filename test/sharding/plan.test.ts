import fc from 'fast-check';
import { expect, test } from 'vitest';
import { ownsGuild, shardCountFrom, shardingRefusal, shardOf } from '../../src/sharding/plan.ts';

test.each([
  { url: 'redis://127.0.0.1:6379', refused: false },
  { url: 'rediss://user:pw@redis.example:6380', refused: false },
  { url: 'sqlite://./data/bot.sqlite', refused: true },
  { url: 'sqlite://:memory:', refused: true },
])('sharded mode on $url: refused $refused', ({ url, refused }) => {
  const reason = shardingRefusal(url);
  expect(reason !== undefined).toBe(refused);
  if (reason) {
    expect(reason).toContain('STORE_URL=redis://');
    expect(reason).toMatch(/rate budgets/);
  }
});

test.each([
  { configured: 4 as const, gateway: undefined, expected: 4 },
  { configured: 'auto' as const, gateway: { shards: 3 }, expected: 3 },
])('shard count $configured with $gateway is $expected', ({ configured, gateway, expected }) => {
  expect(shardCountFrom(configured, gateway)).toBe(expected);
});

test.each([{}, { shards: 0 }, { shards: 1.5 }, null, { shards: '2' }])(
  'auto with an answer without a usable count (%j) throws',
  (gateway) => {
    expect(() => shardCountFrom('auto', gateway)).toThrow(/how many shards/);
  },
);

test("shardOf is Discord's formula and spreads ids over every shard", () => {
  expect(shardOf(String(5n << 22n), 2)).toBe(1);
  expect(shardOf(String(6n << 22n), 3)).toBe(0);
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }),
      fc.integer({ min: 1, max: 64 }),
      (id, count) => {
        const shard = shardOf(String(id), count);
        return shard >= 0 && shard < count && shard === Number((id >> 22n) % BigInt(count));
      },
    ),
  );
});

test('ownsGuild: unsharded owns every guild; a shard owns exactly the guilds Discord routes to it', () => {
  expect(ownsGuild(null, String(5n << 22n))).toBe(true);
  expect(ownsGuild({ ids: [1], count: 2 }, String(5n << 22n))).toBe(true);
  expect(ownsGuild({ ids: [0], count: 2 }, String(5n << 22n))).toBe(false);
  expect(ownsGuild({ ids: [0, 2], count: 3 }, String(6n << 22n))).toBe(true);
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }),
      fc.integer({ min: 1, max: 16 }),
      (id, count) => {
        const owners = Array.from({ length: count }, (_, shard) => shard).filter((shard) =>
          ownsGuild({ ids: [shard], count }, String(id)),
        );
        return owners.length === 1 && owners[0] === shardOf(String(id), count);
      },
    ),
  );
});
