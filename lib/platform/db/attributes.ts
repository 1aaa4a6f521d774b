/** A counter attribute as stored: absent (never incremented) or not a positive number reads as 0. */
export const storedCount = (n: unknown): number => (typeof n === 'number' && n > 0 ? n : 0);
