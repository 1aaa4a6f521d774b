/**
 * The size DynamoDB counts for an item (its 400 KB limit, and write units by the KB): the UTF-8
 * bytes of every attribute name plus its value. Strings and binary by their bytes; a number about
 * one byte per two significant digits plus one; a set the sum of its members; a list or map 3 bytes
 * plus 1 byte per element plus the elements (map keys counted like names); booleans and nulls 1 byte.
 * For items as the document client returns them (plain values, Set, Uint8Array).
 */
export function itemSizeBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

function numberSize(n: number | bigint): number {
  const digits = String(n).replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((s: number, member) => s + valueSize(member), 0);
  if (Array.isArray(value)) return 3 + value.reduce((s: number, v) => s + 1 + valueSize(v), 0);
  if (typeof value === 'object') return 3 + Object.entries(value).reduce((s, [k, v]) => s + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  throw new Error(`itemSizeBytes: no DynamoDB type for ${typeof value}`);
}
