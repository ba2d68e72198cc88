/**
 * R string and backquoted-name literals, decoded the way R's lexer does, so `"\x73ystem"`,
 * `"\u0073ystem"`, `"sys\164em"` and `` `\x73ystem` `` all compare equal to `system`.
 * Pure; never throws: an escape R would refuse is kept verbatim (R then fails to parse it anyway).
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n', r: '\r', t: '\t', b: '\b', a: '\x07', f: '\f', v: '\v',
  '\\': '\\', '"': '"', "'": "'", '`': '`', ' ': ' ', '\n': '\n',
};

const isHex = (c: string): boolean => /^[0-9A-Fa-f]$/.test(c);
const isOctal = (c: string): boolean => c >= '0' && c <= '7';

/** Decodes the escapes of a quoted literal's body (without its quotes). */
export function decodeEscapes(body: string): string {
  if (!body.includes('\\')) return body;
  let out = '';
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      i += 1;
      continue;
    }
    const e = body[i + 1]!;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    if (isOctal(e)) {
      let j = i + 1;
      while (j < body.length && j < i + 4 && isOctal(body[j]!)) j += 1;
      out += String.fromCharCode(parseInt(body.slice(i + 1, j), 8));
      i = j;
      continue;
    }
    if (e === 'x' || e === 'u' || e === 'U') {
      const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      let j = i + 2;
      let braced = false;
      if (e !== 'x' && body[j] === '{') {
        braced = true;
        j += 1;
      }
      const start = j;
      while (j < body.length && j - start < max && isHex(body[j]!)) j += 1;
      if (j === start || (braced && body[j] !== '}')) {
        out += c + e;
        i += 2;
        continue;
      }
      const code = parseInt(body.slice(start, j), 16);
      out += code <= 0x10ffff ? String.fromCodePoint(code) : '';
      i = braced ? j + 1 : j;
      continue;
    }
    out += c + e;
    i += 2;
  }
  return out;
}

/** The value of a string literal as tree-sitter-r hands it over: "..", '..', or r"(..)" in any raw form. */
export function decodeStringLiteral(text: string): string {
  const first = text[0];
  if ((first === 'r' || first === 'R') && text.length >= 2) {
    // r"---( ... )---": the body sits between the opening bracket and its mirror.
    const quote = text[1]!;
    let open = 2;
    while (text[open] === '-') open += 1;
    const dashes = open - 2;
    const closeLength = 1 + dashes + 1;
    if (text.length >= open + 1 + closeLength && text.endsWith(quote)) {
      return text.slice(open + 1, text.length - closeLength);
    }
    return text.slice(2);
  }
  if (text.length >= 2 && (first === '"' || first === "'") && text.endsWith(first)) {
    return decodeEscapes(text.slice(1, -1));
  }
  return decodeEscapes(text.slice(1));
}

/** An identifier as R binds it: backquotes are quoting (with escapes), not part of the name. */
export function decodeName(text: string): string {
  if (text.length >= 2 && text[0] === '`' && text.endsWith('`')) return decodeEscapes(text.slice(1, -1));
  return text;
}
