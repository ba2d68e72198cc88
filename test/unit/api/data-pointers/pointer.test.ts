import { describe, expect, it } from 'vitest';
import { isValidPointer, isValidTenant, MAX_POINTER_LENGTH, MAX_TENANT_LENGTH } from '../../../../functions/api/data-pointers/pointer.ts';

describe('data pointer syntax', () => {
  it.each([
    ['sales'],
    ['sales_2026-Q1'],
    ['v1.2.sales'],
    ['0'],
    ['A'.repeat(MAX_POINTER_LENGTH)],
  ])('accepts %j', (pointer) => {
    expect(isValidPointer(pointer)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['parent directory', '..'],
    ['dot-dot inside', 'a..b'],
    ['dot-dot prefix traversal', '../other/sales'],
    ['slash', 'other/sales'],
    ['leading slash', '/etc/passwd'],
    ['backslash', 'other\\sales'],
    ['percent-encoded slash', 'other%2Fsales'],
    ['percent-encoded dots', '%2e%2e'],
    ['NUL byte', 'sales\u0000.csv'],
    ['unicode letter', 'ventes_été'],
    ['unicode lookalike slash', 'a\u2215b'],
    ['fullwidth dot', 'a\uff0e\uff0eb'],
    ['leading dot (hidden file)', '.sales'],
    ['leading dash (option-like)', '-sales'],
    ['space', 'my sales'],
    ['newline', 'sales\n'],
    ['tilde', '~sales'],
    ['too long', 'A'.repeat(MAX_POINTER_LENGTH + 1)],
  ])('refuses %s', (_label, pointer) => {
    expect(isValidPointer(pointer)).toBe(false);
  });

  it.each([[undefined], [null], [42], [['sales']]])('refuses the non-string %j', (pointer) => {
    expect(isValidPointer(pointer)).toBe(false);
  });
});

describe('tenant syntax', () => {
  it.each([['default'], ['acme'], ['acme-eu-1'], ['0'], ['a'.repeat(MAX_TENANT_LENGTH)]])('accepts %j', (tenant) => {
    expect(isValidTenant(tenant)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['upper case', 'Acme'],
    ['leading dash', '-acme'],
    ['dot', 'acme.eu'],
    ['parent directory', '..'],
    ['slash', 'acme/other'],
    ['backslash', 'acme\\other'],
    ['percent-encoded slash', 'acme%2Fother'],
    ['NUL byte', 'acme\u0000'],
    ['unicode', 'acmé'],
    ['underscore', 'acme_eu'],
    ['too long', 'a'.repeat(MAX_TENANT_LENGTH + 1)],
  ])('refuses %s', (_label, tenant) => {
    expect(isValidTenant(tenant)).toBe(false);
  });
});
