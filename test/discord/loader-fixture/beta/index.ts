import type { Command } from '../../../../src/discord/index.ts';
import { description } from './part.ts';

export default {
  data: { name: 'beta', toJSON: () => ({ name: 'beta', description }) },
  execute: () => Promise.resolve(),
} satisfies Command;
