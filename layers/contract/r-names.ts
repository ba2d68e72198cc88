/**
 * What R calls a syntactic name (R Language Definition, "Identifiers"): the one rule both the
 * execute contract (variable and dataframe names the runner binds) and the validator (a name
 * do.call() may be given as a string) hold names to.
 */

/** R's reserved words: never a binding, never a function name. */
export const R_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'if', 'else', 'repeat', 'while', 'function', 'for', 'next', 'break', 'TRUE', 'FALSE', 'NULL',
  'Inf', 'NaN', 'NA', 'NA_integer_', 'NA_real_', 'NA_character_', 'NA_complex_', 'in',
]);

/** Letters, digits, "." and "_", starting with a letter or a dot not followed by a digit. */
export const R_SYNTACTIC_NAME = /^((([A-Za-z]|[.][A-Za-z._])[A-Za-z0-9._]*)|[.])$/;

/** A syntactic name that is neither reserved nor one of R's `...`, `..1`, `..2`, ... */
export function isOrdinaryRName(name: string): boolean {
  return R_SYNTACTIC_NAME.test(name) && !R_RESERVED_WORDS.has(name) && !/^\.\.(\d+|\.)$/.test(name);
}
