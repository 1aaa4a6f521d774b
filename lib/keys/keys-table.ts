/** Key builders of the api_keys table: the only place that spells its keys. */
const pad = (id: number) => String(id).padStart(12, '0');

export const keyItems = {
  record: (userId: string, id: number) => ({ pk: `USER#${userId}`, sk: `KEY#${pad(id)}` }),
  recordPrefix: 'KEY#',
  userPartition: (userId: string) => `USER#${userId}`,
  /** One per key hash: makes key_hash unique (a GSI cannot) and answers every verification (one consistent GetItem). */
  hashGuard: (keyHash: string) => ({ pk: `KEYHASH#${keyHash}`, sk: 'KEYHASH' }),
  /** The global id sequence. */
  idCounter: { pk: 'COUNTER', sk: 'api_key_id' },
  /** How many key records a user holds, kept in the same transaction as the records. */
  quota: (userId: string) => ({ pk: `USER#${userId}`, sk: 'QUOTA#api_keys' }),
  /**
   * The requests of key `id` in one UTC minute (`minute`: `YYYY-MM-DDTHH:MM`): the rate limit's
   * counter and, summed per day, its usage. One partition per key (ids are never reused).
   */
  usageMinute: (id: number, minute: string) => ({ pk: `KEYUSE#${pad(id)}`, sk: `MIN#${minute}` }),
  usagePartition: (id: number) => `KEYUSE#${pad(id)}`,
  usagePrefix: 'MIN#',
};
