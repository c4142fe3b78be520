// The one Client the UI talks to. Which transport carries it is decided once, in main.tsx;
// nothing else in the UI can tell the difference.
import type { Client } from '../common/api.js';

let current: Client | null = null;

export function setClient(client: Client): void {
  current = client;
}

export function getClient(): Client {
  if (!current) throw new Error('the varlab client is not set up yet');
  return current;
}

/** For components: the client (it never changes after start-up, so no React state is needed). */
export const useClient = getClient;
