/** The one rule for R names that the execute contract and the validator share. */
import { describe, expect, it } from 'vitest';
import { isOrdinaryRName } from '../../../layers/contract/r-names.ts';

describe('isOrdinaryRName', () => {
  it.each(['x', 'df_1', '.hidden', '.', 'a.b.c', '._x', 'rbind'])('accepts %s', (name) => {
    expect(isOrdinaryRName(name)).toBe(true);
  });
  it.each(['', '1x', '.1x', '_x', 'a-b', 'if', 'function', 'TRUE', 'NA_real_', 'in', '...', '..1', '..12', 'é'])('refuses %j', (name) => {
    expect(isOrdinaryRName(name)).toBe(false);
  });
});
