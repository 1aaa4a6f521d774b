/**
 * EASE (Steck 2019, "Embarrassingly Shallow Autoencoders for Sparse Data"): item-to-item weights from
 * one ridge regression of every item's column of the interaction matrix X on all the other columns,
 * in closed form:
 *
 *   P = (X'X + lambda I)^-1        B[i][j] = -P[i][j] / P[j][j]   (i != j),   B[j][j] = 0
 *
 * A person's predicted affinity for j is sum over i of x[i] B[i][j]: row i of B is what an action on
 * i says about every other item, so row i cut to its largest weights is a list servable per item
 * (lib/features/recommend/neighbours.ts). Pure and dense: memory 8 n^2 bytes and about n^3
 * multiply-adds for n items (docs/feed.md, "Training cost"). Used by the model's refresh and by the
 * offline evaluation's EASE baseline (bench/feed-eval/baselines.ts).
 */

/** A person's row of X: item indexes and their values (an item at most once). */
export interface SparseRow {
  items: readonly number[];
  values: readonly number[];
}

/** X'X, dense and row-major (n x n): sum over rows of x[i] x[j]. */
export function gramMatrix(rows: Iterable<SparseRow>, n: number): Float64Array {
  const g = new Float64Array(n * n);
  for (const { items, values } of rows) {
    for (let a = 0; a < items.length; a++) {
      const offset = items[a]! * n;
      const va = values[a]!;
      for (let b = 0; b < items.length; b++) g[offset + items[b]!]! += va * values[b]!;
    }
  }
  return g;
}

/**
 * Inverts a symmetric positive definite matrix in place with the sweep operator (Goodnight 1979):
 * sweeping every pivot turns A into -A^-1 and keeps it symmetric, so only the upper triangle is
 * updated (about n^3 / 2 multiply-adds over contiguous rows; rows whose factor is 0 are skipped,
 * which sparse data leaves many of). The result, A^-1, is written whole (both triangles).
 */
export function invertInPlace(a: Float64Array, n: number): void {
  const v = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // Row (and column) k, from the upper triangle.
    for (let j = 0; j < k; j++) v[j] = a[j * n + k]!;
    for (let j = k; j < n; j++) v[j] = a[k * n + j]!;
    const d = v[k]!;
    for (let i = 0; i < n; i++) {
      if (i === k) continue;
      const f = v[i]! / d;
      if (f === 0) continue;
      const row = i * n;
      for (let j = i; j < n; j++) a[row + j]! -= f * v[j]!;
    }
    for (let j = 0; j < k; j++) a[j * n + k] = v[j]! / d;
    for (let j = k + 1; j < n; j++) a[k * n + j] = v[j]! / d;
    a[k * n + k] = -1 / d;
  }
  // -A^-1 in the upper triangle: negate it and mirror it into the lower one.
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = i; j < n; j++) {
      const x = -a[row + j]!;
      a[row + j] = x;
      a[j * n + i] = x;
    }
  }
}

/**
 * The EASE weights B from X'X (consumed: the result is computed in its place). `lambda` is the
 * ridge penalty added to the diagonal.
 */
export function easeWeights(gram: Float64Array, n: number, lambda: number): Float64Array {
  for (let i = 0; i < n; i++) gram[i * n + i]! += lambda;
  invertInPlace(gram, n);
  const diag = new Float64Array(n);
  for (let j = 0; j < n; j++) diag[j] = gram[j * n + j]!;
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = 0; j < n; j++) gram[row + j] = i === j ? 0 : -gram[row + j]! / diag[j]!;
  }
  return gram;
}

/** Row `i` of B (n x n) cut to its `k` largest positive weights, strongest first (ties by index). */
export function topOfRow(b: Float64Array, n: number, i: number, k: number, min = 0): { index: number; weight: number }[] {
  const out: { index: number; weight: number }[] = [];
  const row = i * n;
  for (let j = 0; j < n; j++) {
    const w = b[row + j]!;
    if (w > min && j !== i) out.push({ index: j, weight: w });
  }
  out.sort((x, y) => y.weight - x.weight || x.index - y.index);
  return out.slice(0, k);
}
