import { once } from 'node:events';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  LabelBuilder,
  type Message,
  MessageFlags,
  ModalBuilder,
  PermissionFlagsBits,
  Routes,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { type FakeDiscord, Permission, startFakeDiscord, type VoiceBackend } from './index.ts';

const OGG = Buffer.from('OggS\0fake-opus-bytes');

const say = new SlashCommandBuilder()
  .setName('say')
  .setDescription('Speak text')
  .addStringOption((o) => o.setName('text').setDescription('What to say').setRequired(true))
  .addStringOption((o) => o.setName('voice').setDescription('Voice').setAutocomplete(true))
  .addIntegerOption((o) => o.setName('speed').setDescription('Speed'))
  .addBooleanOption((o) => o.setName('private').setDescription('Only for me'));

const settings = new SlashCommandBuilder()
  .setName('settings')
  .setDescription('Server settings')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
  .addSubcommand((s) => s.setName('key').setDescription('Set the API key'))
  .addSubcommand((s) => s.setName('panel').setDescription('Show the panel'));

let fake: FakeDiscord | undefined;
let client: Client | undefined;
let handlerErrors: unknown[] = [];

afterEach(async () => {
  await client?.destroy();
  await fake?.close();
  client = undefined;
  fake = undefined;
  expect(handlerErrors).toEqual([]);
  handlerErrors = [];
});

/** Logs a small real discord.js client into the fake and registers the test commands. */
async function connect(
  onInteraction?: (interaction: Interaction) => Promise<void>,
  options: Parameters<typeof startFakeDiscord>[0] = {},
): Promise<{ fake: FakeDiscord; client: Client }> {
  fake = await startFakeDiscord(options);
  client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildVoiceStates,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
    ],
    rest: { api: fake.apiUrl },
  });
  client.on(Events.InteractionCreate, (interaction) => {
    onInteraction?.(interaction).catch((error: unknown) => handlerErrors.push(error));
  });
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  await fake.whenReady();
  await client.application?.commands.set([say.toJSON(), settings.toJSON()]);
  return { fake, client };
}

describe('fake Discord with the real discord.js client', () => {
  test('login sees the world: guild, channels, members and permissions', async () => {
    const { fake, client } = await connect();
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.channels.cache.get(fake.guild.textChannelId)?.isTextBased()).toBe(true);
    expect(guild?.channels.cache.get(fake.guild.voiceChannelId)?.isVoiceBased()).toBe(true);
    expect(client.user?.id).toBe(fake.botUser.id);
    expect(client.application?.id).toBe(fake.applicationId);
    const admin = guild?.members.cache.get(fake.users.admin.id);
    const member = guild?.members.cache.get(fake.users.member.id);
    expect(admin?.permissions.has(PermissionFlagsBits.ManageGuild)).toBe(true);
    expect(member?.permissions.has(PermissionFlagsBits.ManageGuild)).toBe(false);
  });

  test('commands are stored with ids, counted per PUT and served by GET', async () => {
    const { fake, client } = await connect();
    const registered = fake.commands();
    expect(registered.putCount).toBe(1);
    expect(registered.global.map((c) => c.name)).toEqual(['say', 'settings']);
    expect(registered.global.every((c) => /^\d+$/.test(c.id))).toBe(true);
    const fetched = await client.application?.commands.fetch();
    expect(fetched?.map((c) => c.name).sort()).toEqual(['say', 'settings']);
    const sayId = registered.global[0]?.id;
    await client.application?.commands.set([say.toJSON()]);
    expect(fake.commands().putCount).toBe(2);
    expect(fake.commands().global.map((c) => [c.name, c.id])).toEqual([['say', sayId]]);
    expect(() => fake.slash({ user: 'admin', name: 'settings', subcommand: 'key' })).toThrow(
      /\/settings was not registered/,
    );
  });

  test('slash: typed options, member permissions, defer then edit with a file', async () => {
    const { fake } = await connect(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply();
      const text = interaction.options.getString('text', true);
      const speed = interaction.options.getInteger('speed');
      const manager = interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild);
      await interaction.editReply({
        content: `${text}|${speed}|${manager}|${interaction.guildLocale}`,
        files: [{ attachment: OGG, name: 'speech.ogg', contentType: 'audio/ogg' }],
      });
    });
    const handle = fake.slash({ user: 'admin', name: 'say', options: { text: 'hello', speed: 2 } });
    const reply = await handle.waitForReply();
    expect(reply.content).toBe('hello|2|true|en-US');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(0);
    expect(handle.events.map((e) => e.kind)).toEqual(['callback', 'edit']);
    expect(handle.callback()?.type).toBe(5);
    const [file] = handle.files();
    expect(file?.filename).toBe('speech.ogg');
    // discord.js 14.28 drops `contentType` and sniffs the bytes: "OggS" → application/ogg.
    expect(file?.contentType).toBe('application/ogg');
    expect(file?.data.equals(OGG)).toBe(true);
    const [attachment] = reply.attachments;
    expect(attachment).toMatchObject({ filename: 'speech.ogg', size: OGG.length });
    const downloaded = Buffer.from(await (await fetch(attachment?.url ?? '')).arrayBuffer());
    expect(downloaded.equals(OGG)).toBe(true);

    const asMember = fake.slash({ user: 'member', name: 'say', options: { text: 'hi' } });
    expect((await asMember.waitForReply()).content).toBe('hi|null|false|en-US');
    expect(() => fake.slash({ user: 'member', name: 'say', options: { text: 1 } })).toThrow(
      /string/,
    );
    expect(() => fake.slash({ user: 'member', name: 'say', options: {} })).toThrow(
      /needs option "text"/,
    );
    expect(() => fake.slash({ user: 'member', name: 'settings', subcommand: 'key' })).toThrow(
      /cannot see \/settings/,
    );
  });

  test('ephemeral reply keeps flag 64; follow-ups and deletes are recorded in order', async () => {
    const { fake } = await connect(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.reply({ content: 'only you', flags: MessageFlags.Ephemeral });
      await interaction.followUp({ content: 'more', flags: MessageFlags.Ephemeral });
      await interaction.deleteReply();
    });
    const handle = fake.slash({
      user: 'member',
      name: 'say',
      options: { text: 'x', private: true },
    });
    const reply = await handle.waitForReply();
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    await handle.waitFor((e) => e.kind === 'delete');
    expect(handle.events.map((e) => e.kind)).toEqual(['callback', 'followUp', 'delete']);
    expect(handle.lastMessage()).toBeUndefined();
    expect(handle.followUps()[0]?.content).toBe('more');
  });

  test('autocomplete answers choices for the focused option', async () => {
    const { fake } = await connect(async (interaction) => {
      if (!interaction.isAutocomplete()) return;
      const typed = interaction.options.getFocused();
      const names = ['alice', 'albert', 'bob'].filter((n) => n.startsWith(typed));
      await interaction.respond(names.map((name) => ({ name, value: name })));
    });
    const choices = await fake.autocomplete({
      user: 'member',
      name: 'say',
      options: { voice: 'al' },
      focused: 'voice',
    });
    expect(choices.map((c) => c.value)).toEqual(['alice', 'albert']);
  });

  test('modal: showModal, submitModal, reply with the submitted value', async () => {
    const { fake } = await connect(async (interaction) => {
      if (interaction.isChatInputCommand()) {
        const input = new TextInputBuilder()
          .setCustomId('api-key')
          .setLabel('API key')
          .setStyle(TextInputStyle.Short);
        const modal = new ModalBuilder()
          .setCustomId('key-modal')
          .setTitle('API key')
          .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(input));
        await interaction.showModal(modal);
      } else if (interaction.isModalSubmit()) {
        const key = interaction.fields.getTextInputValue('api-key');
        await interaction.reply({ content: `saved ${key.length}`, flags: MessageFlags.Ephemeral });
      }
    });
    const handle = fake.slash({ user: 'admin', name: 'settings', subcommand: 'key' });
    const modal = await handle.waitForModal();
    expect(modal.custom_id).toBe('key-modal');
    await expect(handle.submitModal({ wrong: 'x' })).rejects.toThrow(/no text input "wrong"/);
    const submitted = await handle.submitModal({ 'api-key': 'secret-123' });
    const reply = await submitted.waitForReply();
    expect(reply.content).toBe('saved 10');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
  });

  test('button click with update changes the stored message', async () => {
    const { fake } = await connect(async (interaction) => {
      if (interaction.isChatInputCommand()) {
        const button = new ButtonBuilder()
          .setCustomId('skip')
          .setLabel('Skip')
          .setStyle(ButtonStyle.Secondary);
        await interaction.reply({
          content: 'Now playing',
          components: [new ActionRowBuilder<ButtonBuilder>().addComponents(button)],
        });
      } else if (interaction.isButton()) {
        await interaction.update({
          content: `skipped by ${interaction.user.username}`,
          components: [],
        });
      }
    });
    const handle = fake.slash({ user: 'admin', name: 'settings', subcommand: 'panel' });
    const panel = await handle.waitForReply();
    expect(() => fake.clickButton({ user: 'member', message: panel, customId: 'nope' })).toThrow(
      /has: skip/,
    );
    const click = fake.clickButton({ user: 'member', message: panel, customId: 'skip' });
    const updated = await click.waitForReply();
    expect(click.callback()?.type).toBe(7);
    expect(updated.id).toBe(panel.id);
    expect(updated.content).toBe('skipped by member');
    expect(handle.lastMessage()?.components).toEqual([]);
  });

  test('channel messages: bot posts with files are recorded; user messages reach the bot', async () => {
    const { fake, client } = await connect();
    const channel = client.channels.cache.get(fake.guild.textChannelId);
    if (!channel?.isSendable()) throw new Error('text channel not sendable');
    await channel.send({ content: 'hello', files: [{ attachment: OGG, name: 'a.ogg' }] });
    const [posted] = fake.channelMessages(fake.guild.textChannelId);
    expect(posted?.content).toBe('hello');
    expect(posted?.attachments[0]?.filename).toBe('a.ogg');

    const created = once(client, Events.MessageCreate);
    fake.sendMessage({ user: 'member', content: 'read me' });
    const [message] = (await created) as [{ content: string; author: { id: string } }];
    expect(message.content).toBe('read me');
    expect(message.author.id).toBe(fake.users.member.id);
  });

  test('channel overwrites: discord.js computes them, and no message comes from a channel the bot cannot view', async () => {
    const { fake, client } = await connect(undefined, {
      guilds: [
        {
          textChannels: ['general', 'mods', 'staff'],
          channelOverwrites: {
            mods: [{ target: '@everyone', deny: Permission.ViewChannel }],
            staff: [
              { target: '@everyone', deny: Permission.ViewChannel },
              { target: 'bot', allow: Permission.ViewChannel },
            ],
          },
        },
      ],
    });
    const guild = client.guilds.cache.get(fake.guild.id);
    const id = (channel: string) => fake.guild.channels[channel] ?? '';
    const canView = (channel: string, userId: string) =>
      guild?.channels.cache
        .get(id(channel))
        ?.permissionsFor(userId)
        ?.has(PermissionFlagsBits.ViewChannel);
    expect(canView('general', fake.botUser.id)).toBe(true);
    expect(canView('mods', fake.botUser.id)).toBe(false);
    expect(canView('staff', fake.botUser.id)).toBe(true);
    expect(canView('staff', fake.users.member.id)).toBe(false);
    const seen: string[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message.content));
    const last = once(client, Events.MessageCreate);
    fake.sendMessage({ user: 'admin', channelId: id('mods'), content: 'hidden' });
    fake.sendMessage({ user: 'admin', channelId: id('staff'), content: 'shown' });
    await last;
    expect(seen).toEqual(['shown']);
  });

  test('chat messages: nicknames, mentions, webhooks, other bots, voice chat, edits and deletes', async () => {
    const { fake, client } = await connect(undefined, {
      extraUsers: ['bobby'],
      extraBots: ['musicbot'],
      guilds: [{ nicknames: { bobby: 'Bobby the Great' } }],
    });
    const next = () => once(client, Events.MessageCreate) as Promise<[Message]>;
    let created = next();
    const sent = fake.sendMessage({ user: 'bobby', content: `hi <@${fake.users.admin.id}>` });
    let [message] = await created;
    expect(message.member?.displayName).toBe('Bobby the Great');
    expect(message.mentions.users.first()?.id).toBe(fake.users.admin.id);
    expect(message.webhookId).toBeNull();
    created = next();
    fake.sendMessage({
      webhook: { name: 'TwitchViewer' },
      content: 'relayed',
      attachments: [{ filename: 'a.png', contentType: 'image/png' }],
    });
    [message] = await created;
    expect([message.author.username, message.author.bot, message.webhookId !== null]).toEqual([
      'TwitchViewer',
      true,
      true,
    ]);
    expect(message.attachments.first()?.contentType).toBe('image/png');
    created = next();
    fake.sendMessage({
      user: 'musicbot',
      channelId: fake.guild.voiceChannelId,
      content: 'now playing',
    });
    [message] = await created;
    expect([message.author.bot, message.channelId]).toEqual([true, fake.guild.voiceChannelId]);
    const updated = once(client, Events.MessageUpdate) as Promise<[Message, Message]>;
    fake.editMessage(sent.id, 'hi again');
    const [, after] = await updated;
    expect([after.id, after.content]).toEqual([sent.id, 'hi again']);
    const deleted = once(client, Events.MessageDelete) as Promise<[Message]>;
    fake.deleteMessage(sent.id);
    expect((await deleted)[0].id).toBe(sent.id);
  });

  test('roles: declared roles and holders reach discord.js; a role given later rides on the next message', async () => {
    const { fake, client } = await connect(undefined, {
      extraUsers: ['carol'],
      guilds: [{ roles: { VIP: ['carol'], Regulars: [] } }],
    });
    const vip = fake.guild.roles.VIP ?? '';
    const regulars = fake.guild.roles.Regulars ?? '';
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.roles.cache.get(vip)?.name).toBe('VIP');
    const roleIdsOf = (message: Message) => [...(message.member?.roles.cache.keys() ?? [])].sort();
    const next = () => once(client, Events.MessageCreate) as Promise<[Message]>;
    let created = next();
    fake.sendMessage({ user: 'carol', content: 'first' });
    let [message] = await created;
    expect(roleIdsOf(message)).toEqual([fake.guild.id, vip].sort());
    // This client lacks GuildMembers: no GUILD_MEMBER_UPDATE, the next message tells.
    fake.setRole({ user: 'carol', role: 'Regulars', has: true });
    fake.setRole({ user: 'carol', role: 'VIP', has: false });
    created = next();
    fake.sendMessage({ user: 'carol', content: 'second' });
    [message] = await created;
    expect(roleIdsOf(message)).toEqual([fake.guild.id, regulars].sort());
  });

  test('roles: GUILD_MEMBER_UPDATE reaches a client with the GuildMembers intent', async () => {
    fake = await startFakeDiscord({ extraUsers: ['carol'], guilds: [{ roles: { VIP: [] } }] });
    client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
      rest: { api: fake.apiUrl },
    });
    const ready = once(client, Events.ClientReady);
    await client.login(fake.token);
    await ready;
    const updated = once(client, Events.GuildMemberUpdate);
    fake.setRole({ user: 'carol', role: 'VIP', has: true });
    const [, member] = (await updated) as [
      unknown,
      { id: string; roles: { cache: Map<string, unknown> } },
    ];
    expect(member.id).toBe(fake.users.carol?.id);
    expect(member.roles.cache.has(fake.guild.roles.VIP ?? '')).toBe(true);
  });

  test('a refused privileged intent closes the gateway with 4014 and login fails', async () => {
    const refusing = await startFakeDiscord({ disallowedIntents: 1 << 15 });
    const bot = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
      rest: { api: refusing.apiUrl },
    });
    const disconnected = once(bot, Events.ShardDisconnect) as Promise<[{ code: number }]>;
    await expect(bot.login(refusing.token)).rejects.toThrow(/disallowed intents/i);
    expect((await disconnected)[0].code).toBe(4014);
    await bot.destroy();
    await refusing.close();
  });

  test('voice hook: op 4 gets state and server updates from the backend; leaves close it', async () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const voice: VoiceBackend = {
      open: (session) => {
        opened.push(session.channelId);
        return { endpoint: '127.0.0.1:9', token: `t-${session.sessionId}` };
      },
      close: (session) => closed.push(session.sessionId),
    };
    const { fake, client } = await connect(undefined, {
      voice,
      guilds: [
        {
          voiceChannels: ['Lounge', 'Quiet'],
          voiceStates: [{ user: 'member', channel: 'Lounge' }],
        },
      ],
    });
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.voiceStates.cache.get(fake.users.member.id)?.channelId).toBe(
      fake.guild.voiceChannelId,
    );
    const server = once(client, Events.VoiceServerUpdate);
    guild?.shard.send({
      op: 4,
      d: {
        guild_id: fake.guild.id,
        channel_id: fake.guild.voiceChannelId,
        self_deaf: true,
        self_mute: false,
      },
    });
    const [update] = (await server) as [{ endpoint: string; token: string }];
    expect(update.endpoint).toBe('127.0.0.1:9');
    const [bot] = fake.voiceStates().filter((s) => s.userId === fake.botUser.id);
    expect(update.token).toBe(`t-${bot?.sessionId}`);
    expect(opened).toEqual([fake.guild.voiceChannelId]);
    expect(guild?.members.me?.voice.channelId).toBe(fake.guild.voiceChannelId);

    const left = once(client, Events.VoiceStateUpdate);
    fake.moveMember({ userId: 'member', channelId: null });
    const [, after] = (await left) as [unknown, { channelId: string | null }];
    expect(after.channelId).toBeNull();

    fake.disconnectBot();
    expect(closed).toEqual([bot?.sessionId]);
    expect(fake.voiceStates()).toEqual([]);
  });

  test('guild commands take precedence; subcommand groups and withResponse callbacks', async () => {
    const { fake, client } = await connect(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      const path = `${interaction.options.getSubcommandGroup()}/${interaction.options.getSubcommand()}`;
      const response = await interaction.deferReply({ withResponse: true });
      await interaction.editReply(
        `${interaction.commandGuildId}|${path}|${response.interaction.type}`,
      );
    });
    const voice = new SlashCommandBuilder()
      .setName('say')
      .setDescription('Guild variant')
      .addSubcommandGroup((g) =>
        g
          .setName('voice')
          .setDescription('Voices')
          .addSubcommand((s) => s.setName('set').setDescription('Set the voice')),
      );
    await client.guilds.cache.get(fake.guild.id)?.commands.set([voice.toJSON()]);
    expect(fake.commands().guilds[fake.guild.id]?.map((c) => c.name)).toEqual(['say']);
    expect(fake.commands().putCount).toBe(2);
    const handle = fake.slash({ user: 'member', name: 'say', subcommand: 'voice set' });
    expect((await handle.waitForReply()).content).toBe(`${fake.guild.id}|voice/set|2`);
    expect(() => fake.slash({ user: 'member', name: 'say', subcommand: 'voice' })).toThrow(/group/);
  });

  test('modal with label components, and a button handled by deferUpdate + editReply', async () => {
    const { fake } = await connect(async (interaction) => {
      if (interaction.isChatInputCommand()) {
        const button = new ButtonBuilder()
          .setCustomId('open')
          .setLabel('Open')
          .setStyle(ButtonStyle.Primary);
        await interaction.reply({
          content: 'panel',
          components: [new ActionRowBuilder<ButtonBuilder>().addComponents(button)],
        });
      } else if (interaction.isButton()) {
        const label = new LabelBuilder()
          .setLabel('Name')
          .setTextInputComponent(
            new TextInputBuilder().setCustomId('name').setStyle(TextInputStyle.Short),
          );
        await interaction.showModal(
          new ModalBuilder().setCustomId('rename').setTitle('Rename').addLabelComponents(label),
        );
      } else if (interaction.isModalSubmit()) {
        await interaction.deferUpdate();
        await interaction.editReply({
          content: `renamed to ${interaction.fields.getTextInputValue('name')}`,
        });
      }
    });
    const panel = await fake
      .slash({ user: 'admin', name: 'settings', subcommand: 'panel' })
      .waitForReply();
    const click = fake.clickButton({ user: 'admin', message: panel.id, customId: 'open' });
    const modal = await click.waitForModal();
    expect((modal.components as Array<{ type: number }>)[0]?.type).toBe(18);
    const submit = await click.submitModal({ name: 'Kitchen' });
    const edited = await submit.waitForReply();
    expect(submit.callback()?.type).toBe(6);
    expect(edited.id).toBe(panel.id);
    expect(fake.message(panel.id)?.content).toBe('renamed to Kitchen');
  });

  test('a second callback is refused like Discord does (40060)', async () => {
    const { fake } = await connect(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.reply('first');
      const again = { body: { type: 4, data: { content: 'second' } }, auth: false };
      const route = Routes.interactionCallback(interaction.id, interaction.token);
      const code = await interaction.client.rest.post(route, again).then(
        () => 'accepted',
        (error: { code?: number }) => error.code,
      );
      await interaction.followUp(`refused ${code}`);
    });
    const handle = fake.slash({ user: 'member', name: 'say', options: { text: 'x' } });
    await handle.waitFor((e) => e.kind === 'followUp');
    expect(handle.followUps()[0]?.content).toBe('refused 40060');
    const refused = fake.requests.filter((r) => r.route.endsWith('/callback') && r.status === 400);
    expect(refused).toHaveLength(1);
  });

  test('channel delete and members leaving voice reach the client', async () => {
    const { fake, client } = await connect(undefined, {
      guilds: [{ voiceStates: [{ user: 'admin', channel: 'Voice' }] }],
    });
    const left = once(client, Events.VoiceStateUpdate);
    const deleted = once(client, Events.ChannelDelete);
    fake.deleteChannel(fake.guild.voiceChannelId);
    const [, after] = (await left) as [unknown, { channelId: string | null }];
    expect(after.channelId).toBeNull();
    await deleted;
    expect(client.channels.cache.has(fake.guild.voiceChannelId)).toBe(false);
    expect(fake.voiceStates()).toEqual([]);
  });

  test('a guild’s locale is its preferred_locale; setGuildLocale changes it by GUILD_UPDATE', async () => {
    const { fake, client } = await connect(undefined, { guilds: [{ locale: 'fr' }, {}] });
    const [first, second] = fake.guilds;
    expect(client.guilds.cache.get(first?.id ?? '')?.preferredLocale).toBe('fr');
    expect(client.guilds.cache.get(second?.id ?? '')?.preferredLocale).toBe('en-US');
    const updated = once(client, Events.GuildUpdate);
    fake.setGuildLocale('de');
    const [, after] = (await updated) as [unknown, { id: string; preferredLocale: string }];
    expect(after).toMatchObject({ id: first?.id, preferredLocale: 'de' });
    const guild = client.guilds.cache.get(first?.id ?? '');
    expect(guild?.preferredLocale).toBe('de');
    expect(guild?.channels.cache.size).toBe(2);
    expect(guild?.members.cache.has(fake.users.admin.id)).toBe(true);
    expect(client.guilds.cache.get(second?.id ?? '')?.preferredLocale).toBe('en-US');
  });

  test('raw gateway: HELLO, READY then GUILD_CREATE with increasing s, heartbeat ack', async () => {
    fake = await startFakeDiscord({ guilds: [{}, { name: 'Second' }] });
    const socket = new WebSocket(`${fake.gatewayUrl}/?v=10&encoding=json`);
    const received: Array<{ op: number; t: string | null; s: number | null; d: unknown }> = [];
    socket.on('message', (data) => received.push(JSON.parse(String(data))));
    await once(socket, 'open');
    socket.send(
      JSON.stringify({ op: 2, d: { token: fake.token, intents: 1 | 128, properties: {} } }),
    );
    socket.send(JSON.stringify({ op: 1, d: null }));
    await fake.whenReady();
    await expect.poll(() => received.length).toBe(5);
    expect(received.map((p) => p.op)).toEqual([10, 0, 0, 0, 11]);
    expect(received.map((p) => p.t)).toEqual([null, 'READY', 'GUILD_CREATE', 'GUILD_CREATE', null]);
    expect(received.slice(1, 4).map((p) => p.s)).toEqual([1, 2, 3]);
    socket.close();
    await once(socket, 'close');
  });

  test('uploads over the limit are refused with 40005, as Discord does', async () => {
    const { fake } = await connect(
      async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await interaction.deferReply();
        const file = { attachment: OGG, name: 'speech.ogg' };
        const code = await interaction.editReply({ files: [file] }).then(
          () => 'accepted',
          (error: { code?: number }) => error.code,
        );
        await interaction.editReply(`upload ${code}`);
      },
      { uploadLimitBytes: 8 },
    );
    const handle = fake.slash({ user: 'member', name: 'say', options: { text: 'x' } });
    expect((await handle.waitForReply()).content).toBe('upload 40005');
    expect(handle.payload.attachment_size_limit).toBe(8);
  });

  test('a wrong token fails at REST (401) and at gateway IDENTIFY (4004)', async () => {
    fake = await startFakeDiscord();
    client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiUrl } });
    await expect(client.login('wrong.token.here')).rejects.toThrow(/invalid token/i);
    const response = await fetch(`${fake.apiUrl}/v10/users/@me`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: '401: Unauthorized', code: 0 });

    const socket = new WebSocket(`${fake.gatewayUrl}/?v=10&encoding=json`);
    await once(socket, 'message');
    socket.send(JSON.stringify({ op: 2, d: { token: 'wrong', intents: 1, properties: {} } }));
    const [code] = await once(socket, 'close');
    expect(code).toBe(4004);
  });
});
