/** The server's TTS client, from its stored key: the one way every part reaches it. */
import { UserError } from '../refusal/index.ts';
import type { ApiKeyVault } from '../store/index.ts';
import type { TtsClient, TtsClients } from '../tts/index.ts';

/** Where a server's key and the clients for keys come from. */
export interface KeyServices {
  readonly apiKeys: Pick<ApiKeyVault, 'get'>;
  readonly tts: Pick<TtsClients, 'forKey'>;
}

/**
 * The client for the server's key, or a refusal telling who can set one and how (`canManage`:
 * the one asking has Manage Server and can set it themselves).
 */
export async function serverClient(
  services: KeyServices,
  guildId: string,
  canManage: boolean,
): Promise<TtsClient> {
  const apiKey = await services.apiKeys.get(guildId);
  if (apiKey === undefined) {
    throw new UserError(canManage ? 'no_api_key_admin' : 'no_api_key_member', {});
  }
  return services.tts.forKey(apiKey);
}
