/** Registered application commands, and interaction `data.options` built from their definitions. */
import type { CommandOption, Json, StoredCommand } from './types.ts';

/** Option values a test passes to `slash` or `autocomplete`. */
export type OptionValues = Record<string, string | number | boolean>;

/** Which command a test invokes and with what. */
export interface Invocation {
  name: string;
  /** `'sub'` or `'group sub'`. */
  subcommand?: string;
  options?: OptionValues;
  /** Autocomplete only: the option being typed. */
  focused?: string;
}

/** Turns a user-facing value (user ref, channel name…) into the id Discord would send. */
export type Resolve = (type: number, value: string | number | boolean, where: string) => string;

const SUBCOMMAND = 1;
const GROUP = 2;

/** Stores the commands the bot registered, global and per guild. */
export class CommandStore {
  global: StoredCommand[] = [];
  readonly guilds = new Map<string, StoredCommand[]>();
  /** Number of bulk overwrites (PUT) received. */
  putCount = 0;
  readonly #nextId: () => string;
  readonly #applicationId: string;

  constructor(nextId: () => string, applicationId: string) {
    this.#nextId = nextId;
    this.#applicationId = applicationId;
  }

  /** The commands of a scope (undefined = global). */
  list(guildId: string | undefined): StoredCommand[] {
    return guildId === undefined ? this.global : (this.guilds.get(guildId) ?? []);
  }

  /** Bulk overwrite; keeps the id of a command with the same name and type, like Discord. */
  put(guildId: string | undefined, definitions: Json[]): StoredCommand[] {
    this.putCount += 1;
    const previous = this.list(guildId);
    const stored = definitions.map((definition) => this.#store(guildId, definition, previous));
    this.#set(guildId, stored);
    return stored;
  }

  /** Creates or replaces one command (POST). */
  create(guildId: string | undefined, definition: Json): StoredCommand {
    const previous = this.list(guildId);
    const command = this.#store(guildId, definition, previous);
    this.#set(guildId, [...previous.filter((c) => c.id !== command.id), command]);
    return command;
  }

  /** Edits one command by id (PATCH); undefined when unknown. */
  edit(guildId: string | undefined, id: string, patch: Json): StoredCommand | undefined {
    const previous = this.list(guildId);
    const current = previous.find((c) => c.id === id);
    if (!current) return undefined;
    const edited: StoredCommand = { ...current, ...patch, id, version: this.#nextId() };
    this.#set(
      guildId,
      previous.map((c) => (c.id === id ? edited : c)),
    );
    return edited;
  }

  /** Deletes one command; false when unknown. */
  remove(guildId: string | undefined, id: string): boolean {
    const previous = this.list(guildId);
    this.#set(
      guildId,
      previous.filter((c) => c.id !== id),
    );
    return previous.some((c) => c.id === id);
  }

  /** The chat-input command a member of `guildId` would see under `name` (guild first). */
  find(guildId: string, name: string): StoredCommand {
    const match = (c: StoredCommand) => c.name === name && c.type === 1;
    const command = this.list(guildId).find(match) ?? this.global.find(match);
    if (!command) {
      const known = [...this.list(guildId), ...this.global].map((c) => `/${c.name}`);
      throw new Error(
        `fake-discord: /${name} was not registered (registered: ${known.join(', ')})`,
      );
    }
    return command;
  }

  #store(guildId: string | undefined, definition: Json, previous: StoredCommand[]): StoredCommand {
    const type = typeof definition.type === 'number' ? definition.type : 1;
    const name = String(definition.name);
    const same = previous.find((c) => c.name === name && c.type === type);
    return {
      default_member_permissions: null,
      description_localizations: null,
      name_localizations: null,
      nsfw: false,
      ...definition,
      id: same?.id ?? this.#nextId(),
      application_id: this.#applicationId,
      version: this.#nextId(),
      name,
      type,
      ...(guildId === undefined ? {} : { guild_id: guildId }),
    };
  }

  #set(guildId: string | undefined, commands: StoredCommand[]): void {
    if (guildId === undefined) this.global = commands;
    else this.guilds.set(guildId, commands);
  }
}

/** `data.options` for an invocation, typed from the registered definition. */
export function buildOptions(
  command: StoredCommand,
  invocation: Invocation,
  resolve: Resolve,
  autocomplete: boolean,
): Json[] {
  const definitions = command.options ?? [];
  const path = invocation.subcommand?.trim().split(/\s+/) ?? [];
  const hasSubcommands = definitions.some((o) => o.type === SUBCOMMAND || o.type === GROUP);
  if (hasSubcommands !== path.length > 0) {
    const names = definitions.filter((o) => o.type <= GROUP).map((o) => o.name);
    throw new Error(
      `fake-discord: /${command.name} ${hasSubcommands ? `needs a subcommand (${names})` : 'has no subcommands'}`,
    );
  }
  const build = (level: CommandOption[], rest: string[], where: string): Json[] => {
    const [head, ...tail] = rest;
    if (head === undefined) return leafOptions(level, invocation, resolve, autocomplete, where);
    const sub = level.find((o) => o.name === head && (o.type === SUBCOMMAND || o.type === GROUP));
    if (!sub) throw new Error(`fake-discord: ${where} has no subcommand "${head}"`);
    if (sub.type === GROUP && tail.length === 0) {
      throw new Error(`fake-discord: ${where} ${head} is a group; name a subcommand in it`);
    }
    return [
      {
        type: sub.type,
        name: sub.name,
        options: build(sub.options ?? [], tail, `${where} ${head}`),
      },
    ];
  };
  return build(definitions, path, `/${command.name}`);
}

function leafOptions(
  definitions: CommandOption[],
  { options = {}, focused }: Invocation,
  resolve: Resolve,
  autocomplete: boolean,
  where: string,
): Json[] {
  const known = definitions.map((o) => o.name);
  for (const key of [...Object.keys(options), ...(focused === undefined ? [] : [focused])]) {
    if (!known.includes(key)) {
      throw new Error(
        `fake-discord: ${where} has no option "${key}" (options: ${known.join(', ')})`,
      );
    }
  }
  const result: Json[] = [];
  for (const definition of definitions) {
    const value = options[definition.name];
    if (autocomplete && definition.name === focused) {
      result.push({
        type: definition.type,
        name: definition.name,
        value: String(value ?? ''),
        focused: true,
      });
    } else if (value !== undefined) {
      result.push({
        type: definition.type,
        name: definition.name,
        value: typed(definition, value, resolve, where),
      });
    } else if (definition.required === true && !autocomplete) {
      throw new Error(`fake-discord: ${where} needs option "${definition.name}"`);
    }
  }
  return result;
}

function typed(
  definition: CommandOption,
  value: string | number | boolean,
  resolve: Resolve,
  where: string,
): string | number | boolean {
  const label = `${where} option "${definition.name}"`;
  const expect = (ok: boolean, kind: string) => {
    if (!ok) throw new Error(`fake-discord: ${label} needs ${kind}, got ${JSON.stringify(value)}`);
  };
  if (definition.type === 3) expect(typeof value === 'string', 'a string');
  else if (definition.type === 4) expect(Number.isInteger(value), 'an integer');
  else if (definition.type === 10) expect(typeof value === 'number', 'a number');
  else if (definition.type === 5) expect(typeof value === 'boolean', 'a boolean');
  else return resolve(definition.type, value, label);
  if (definition.choices && !definition.choices.some((c) => c.value === value)) {
    const values = definition.choices.map((c) => JSON.stringify(c.value));
    throw new Error(`fake-discord: ${label} must be one of ${values.join(', ')}`);
  }
  return value;
}
