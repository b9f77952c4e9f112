/**
 * IRC lines as Twitch chat sends them: IRCv3 tags, a prefix, a command and parameters.
 * Pure: parsing, formatting and the tag value escaping of the IRCv3 message-tags spec.
 */

/** One parsed IRC line. */
export interface IrcMessage {
  /** Tag values unescaped; a tag without a value is the empty string. */
  readonly tags: ReadonlyMap<string, string>;
  /** `nick!user@host` or a server name, without the leading colon. */
  readonly prefix: string | undefined;
  readonly command: string;
  /** Middle parameters, then the trailing one (without its colon). */
  readonly params: readonly string[];
}

const ESCAPES: Readonly<Record<string, string>> = {
  ';': '\\:',
  ' ': '\\s',
  '\\': '\\\\',
  '\r': '\\r',
  '\n': '\\n',
};
const UNESCAPES: Readonly<Record<string, string>> = {
  ':': ';',
  s: ' ',
  '\\': '\\',
  r: '\r',
  n: '\n',
};

/** A tag value as written on the wire (`;`, space, backslash, CR and LF escaped). */
export function escapeTagValue(value: string): string {
  return value.replace(/[; \\\r\n]/g, (character) => ESCAPES[character] ?? character);
}

/** A tag value as it was meant: an unknown escape is its character, a lone final `\` is dropped. */
export function unescapeTagValue(raw: string): string {
  return raw.replace(/\\(.?)/gs, (_, next: string) => UNESCAPES[next] ?? next);
}

function parseTags(raw: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const pair of raw.split(';')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    if (equals === -1) tags.set(pair, '');
    else tags.set(pair.slice(0, equals), unescapeTagValue(pair.slice(equals + 1)));
  }
  return tags;
}

/** Parses one line (without or with its CR LF); undefined for an empty or malformed line. */
export function parseLine(line: string): IrcMessage | undefined {
  let rest = line.replace(/[\r\n]+$/, '');
  const word = (): string => {
    rest = rest.replace(/^ +/, '');
    const space = rest.indexOf(' ');
    const taken = space === -1 ? rest : rest.slice(0, space);
    rest = space === -1 ? '' : rest.slice(space + 1);
    return taken;
  };
  let tags = new Map<string, string>();
  if (rest.startsWith('@')) tags = parseTags(word().slice(1));
  rest = rest.replace(/^ +/, '');
  const prefix = rest.startsWith(':') ? word().slice(1) : undefined;
  const command = word().toUpperCase();
  if (command === '') return undefined;
  const params: string[] = [];
  for (rest = rest.replace(/^ +/, ''); rest !== ''; rest = rest.replace(/^ +/, '')) {
    if (rest.startsWith(':')) {
      params.push(rest.slice(1));
      break;
    }
    params.push(word());
  }
  return { tags, prefix, command, params };
}

/** What {@link formatLine} writes. */
export interface OutgoingLine {
  readonly tags?: ReadonlyMap<string, string>;
  readonly prefix?: string;
  readonly command: string;
  readonly params?: readonly string[];
}

/** One line without CR LF; the last parameter gets a colon when it needs one. */
export function formatLine(line: OutgoingLine): string {
  const parts: string[] = [];
  if (line.tags !== undefined && line.tags.size > 0) {
    const tags = [...line.tags].map(([key, value]) =>
      value === '' ? key : `${key}=${escapeTagValue(value)}`,
    );
    parts.push(`@${tags.join(';')}`);
  }
  if (line.prefix !== undefined) parts.push(`:${line.prefix}`);
  parts.push(line.command);
  const params = line.params ?? [];
  params.forEach((param, index) => {
    const last = index === params.length - 1;
    const needsColon = param === '' || param.includes(' ') || param.startsWith(':');
    if (needsColon && !last) throw new Error(`IRC middle parameter cannot be "${param}"`);
    parts.push(needsColon ? `:${param}` : param);
  });
  return parts.join(' ');
}

/** The nick of a `nick!user@host` prefix (the whole prefix when it is a server name). */
export function nickOf(prefix: string | undefined): string | undefined {
  if (prefix === undefined) return undefined;
  const bang = prefix.indexOf('!');
  return bang === -1 ? prefix : prefix.slice(0, bang);
}
