/** "Did you mean": the closest candidate by edit distance (case-insensitive), if close enough. */
export function closest(name: string, candidates: readonly string[], maxDistance = 3): string | undefined {
  return nearest(name, candidates, 1, maxDistance)[0];
}

/**
 * The `count` candidates nearest to `name` by edit distance, case-insensitive, within `maxDistance`
 * (a candidate equal but for case is at distance 0) and at most one edit farther than the nearest
 * (so `dplr` suggests `dplyr`, not also `xml2` three edits away): nearest first, ties in
 * code-unit order.
 */
export function nearest(name: string, candidates: readonly string[], count: number, maxDistance = 3): string[] {
  const target = name.toLowerCase();
  const near = candidates
    .map((candidate) => ({ candidate, d: distance(target, candidate.toLowerCase(), maxDistance + 1) }))
    .filter(({ d }) => d <= maxDistance)
    .sort((a, b) => a.d - b.d || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0));
  const best = near[0]?.d ?? 0;
  return near
    .filter(({ d }) => d <= best + 1)
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

/** Levenshtein distance, giving up (returning `cap`) once it cannot be below `cap`. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin >= cap) return cap;
    previous = current;
  }
  return previous[b.length]!;
}
