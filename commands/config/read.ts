/** `/config read who|sound|pace|ignore-member|ignore-role|priority-role`: how chat is read aloud. */
import type { SubcommandPart } from '../../src/discord/index.ts';
import { readPart } from '../../src/discord/read-config.ts';

export default readPart satisfies SubcommandPart;
