/**
 * Bounds on JSON a run produced, without recursion (a value nested a million deep must not blow
 * the handler's stack, as JSON.stringify would): the nesting of a JSON text before it is parsed,
 * and the serialized size of a parsed value.
 */

/**
 * The deepest nesting of arrays and objects in `text`, counted in one linear pass; stops counting
 * once `limit` is passed (returns limit + 1). Brackets inside strings do not count.
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return deepest;
}

/** UTF-8 bytes of `s` as JSON.stringify would write it (quotes and escapes included). */
function stringBytes(s: string): number {
  let bytes = 2;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) bytes += 2;
    else if (c < 0x20) bytes += 6;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdfff) bytes += 6; // a lone surrogate: escaped as \udXXX
    else bytes += 3;
  }
  return bytes;
}

/**
 * The size in bytes of JSON.stringify(value), computed with an explicit stack; stops once `limit`
 * is passed (the result is then some number above it). Values JSON.stringify would drop or turn
 * into null (undefined, functions, NaN) are counted as it counts them, near enough for a cap.
 */
export function jsonBytes(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (total > limit) return total;
    if (v === null || v === undefined) total += 4;
    else if (typeof v === 'string') total += stringBytes(v);
    else if (typeof v === 'number') total += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === 'boolean') total += v ? 4 : 5;
    else if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') total += 4;
    else if (Array.isArray(v)) {
      total += 2 + Math.max(0, v.length - 1);
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push(v[i]);
    } else {
      const keys = Object.keys(v as object);
      total += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        total += stringBytes(key) + 1;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}

/** The nesting depth of a parsed value, iteratively; stops once `limit` is passed. */
export function valueDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return deepest;
}
