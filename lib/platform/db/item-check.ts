/**
 * The checked parse of a stored item (an entity's `fromItem`): the item is of the expected kind
 * (its `entity` attribute) and each attribute the entity's readers rely on has the stored type.
 * An item that is not is an error (a 500 with the item's key in the log), never read as if it were
 * the entity. Cheap on purpose, as it runs on every read: a few `typeof` checks, no copy.
 */

/** The stored type of an attribute, as the document client gives it back. */
export type AttributeKind = 'string' | 'number' | 'boolean' | 'list' | 'map' | 'set';

/** The attributes an item must have (`required`) or may have (`optional`), with their kinds. */
export interface ItemShape {
  /** The item's `entity` attribute (absent: items written by updates alone, which carry none). */
  entity?: string | readonly string[];
  required?: Readonly<Record<string, AttributeKind>>;
  optional?: Readonly<Record<string, AttributeKind>>;
}

export class UnexpectedItemError extends Error {
  constructor(what: string, item: Record<string, unknown>, problem: string) {
    super(`unexpected ${what} item ${String(item.pk)}|${String(item.sk)}: ${problem}`);
    this.name = 'UnexpectedItemError';
  }
}

const isKind = (value: unknown, kind: AttributeKind): boolean => {
  switch (kind) {
    case 'list':
      return Array.isArray(value);
    case 'set':
      return value instanceof Set;
    case 'map':
      return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Set);
    default:
      return typeof value === kind;
  }
};

/** Whether `item` has the shape (the `entity` and every attribute's kind), else the first problem found. */
export function shapeProblem(item: Record<string, unknown>, shape: ItemShape): string | undefined {
  const entities = typeof shape.entity === 'string' ? [shape.entity] : shape.entity;
  if (entities && !entities.includes(item.entity as string)) return `entity is ${JSON.stringify(item.entity)}, not ${entities.join(' or ')}`;
  for (const [name, kind] of Object.entries(shape.required ?? {})) if (!isKind(item[name], kind)) return `${name} is not a ${kind}`;
  for (const [name, kind] of Object.entries(shape.optional ?? {})) if (item[name] !== undefined && !isKind(item[name], kind)) return `${name} is not a ${kind}`;
  return undefined;
}

/**
 * `item` as a `T` once checked against `shape` (undefined stays undefined: no such item); throws
 * UnexpectedItemError otherwise. The one place a stored item becomes a typed value.
 */
export function checkedItem<T>(what: string, shape: ItemShape, item: Record<string, unknown> | undefined): T | undefined {
  if (item === undefined) return undefined;
  const problem = shapeProblem(item, shape);
  if (problem) throw new UnexpectedItemError(what, item, problem);
  return item as T;
}

/** A parse of items of one shape: `fromItem(item)`, the checked item or undefined when there is none. */
export const itemParser =
  <T>(what: string, shape: ItemShape) =>
  (item: Record<string, unknown> | undefined): T | undefined =>
    checkedItem<T>(what, shape, item);
