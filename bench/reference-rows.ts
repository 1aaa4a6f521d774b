/**
 * The names of the latency section's reference rows (bench/sections/latency.ts measures them,
 * bench/targets.ts finds them in the results to compute the authorizer's ratios).
 */

/** One consistent GetItem of a small item on the same DynamoDB Local, with the functions' client. */
export const BARE_GET_ITEM = 'bare consistent GetItem (reference)';
/** The key use's own conditional UpdateItem, sent bare. */
export const BARE_KEY_UPDATE = 'bare key-use UpdateItem (reference)';
/** A JWT check's own BatchGetItem of the session and the account, sent bare. */
export const BARE_SESSION_READ = 'bare session BatchGetItem (reference)';
