import { signUp, type Account } from './fixtures.js';

/**
 * The accounts (and, once the catalog exists, the videos) that the scenarios share, created once
 * per bench process through the real sign-up.
 */
export interface World {
  alice: Account;
  bob: Account;
}

let built: Promise<World> | undefined;

export function world(): Promise<World> {
  built ??= (async () => {
    const alice = await signUp();
    const bob = await signUp();
    return { alice, bob };
  })();
  return built;
}
