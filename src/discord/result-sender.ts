import { type Client, Routes } from 'discord.js';
import type { ResultMessage, SendResult } from '../durable/index.ts';

/**
 * Delivers a result of pending speech through Discord's REST API, so a
 * restarted bot (which has no interaction objects) can still edit the
 * original reply by its token, or post in the channel. Never pings anyone.
 */
export function restResultSender(client: Client): SendResult {
  return async (route, message) => {
    const { body, files } = payloadOf(message);
    if (route.kind === 'reply') {
      await client.rest.patch(Routes.webhookMessage(route.applicationId, route.token), {
        body,
        files,
        auth: false,
      });
    } else if (route.kind === 'channel') {
      await client.rest.post(Routes.channelMessages(route.channelId), { body, files });
    }
  };
}

function payloadOf(message: ResultMessage) {
  const file = message.file;
  return {
    body: {
      content: message.content,
      allowed_mentions: { parse: [] },
      // Replaces whatever the reply showed (a progress line, no attachment) with this file alone.
      attachments: file === undefined ? [] : [{ id: 0, filename: file.name }],
      embeds: [],
      components: [],
    },
    files:
      file === undefined
        ? []
        : [{ name: file.name, data: file.bytes, contentType: file.mime, key: 'files[0]' }],
  };
}
