import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { REPO_ROOT, startScriptFlags } from '../../../tools/local-stack/bot-process.ts';

test('the bot child gets the Node flags of `npm start` (not its env file), like production', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const flags = startScriptFlags();
  expect(flags).toContain('--max-semi-space-size=8');
  expect(flags.every((flag) => pkg.scripts.start?.includes(flag))).toBe(true);
  expect(flags.some((flag) => flag.startsWith('--env-file'))).toBe(false);
  expect(flags).not.toContain('src/main.ts');
});
