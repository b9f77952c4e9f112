import type { Command } from '../../../src/discord/index.ts';

export default {
  data: { name: 'alpha', toJSON: () => ({ name: 'alpha', description: 'a file' }) },
  execute: () => Promise.resolve(),
} satisfies Command;
