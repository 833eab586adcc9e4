/** Upper median of `values` (the element at index floor(n / 2) once sorted); NaN when empty. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The 90th percentile of `values` (the element at index floor(0.9 n) once sorted); NaN when empty. */
export function p90(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.9)] ?? Number.NaN;
}
