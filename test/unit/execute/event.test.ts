import { describe, expect, it } from 'vitest';
import { InvalidExecuteEventError, parseExecuteEvent } from '../../../functions/execute/event.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { SCRIPT_TIMEOUT_SECONDS_LIMIT } from '../../../layers/contract/execute.ts';

const rules = loadRules();
const event = (extra: Record<string, unknown> = {}) => ({ script: '1', timeoutSeconds: 5, ...extra });

describe('the execute event', () => {
  it('carries plot options and a context when they are given', () => {
    const parsed = parseExecuteEvent(event({ plots: { width: 300, format: 'svg' }, context: { a: [1, 2], b: { c: null } } }), rules);
    expect(parsed).toMatchObject({ plots: { width: 300, format: 'svg' }, context: { a: [1, 2], b: { c: null } } });
  });

  it('accepts a minimal event and fills the defaults', () => {
    expect(parseExecuteEvent(event(), rules)).toEqual({ script: '1', timeoutSeconds: 5, variables: [], dataframes: [] });
  });

  it('takes a timeout at the bound as it is', () => {
    expect(parseExecuteEvent(event({ timeoutSeconds: SCRIPT_TIMEOUT_SECONDS_LIMIT }), rules).timeoutSeconds).toBe(SCRIPT_TIMEOUT_SECONDS_LIMIT);
  });

  it.each([
    { name: 'no script', input: { timeoutSeconds: 5 } },
    { name: 'a zero timeout', input: event({ timeoutSeconds: 0 }) },
    { name: 'a timeout past the bound', input: event({ timeoutSeconds: SCRIPT_TIMEOUT_SECONDS_LIMIT + 1 }) },
    { name: 'a fractional timeout', input: event({ timeoutSeconds: 1.5 }) },
    { name: 'an unknown field', input: event({ env: {} }) },
    { name: 'a null variable', input: event({ variables: [{ name: 'x', value: null }] }) },
    { name: 'a non-syntactic name', input: event({ variables: [{ name: 'a-b', value: 1 }] }) },
    { name: 'a reserved word', input: event({ variables: [{ name: 'TRUE', value: 1 }] }) },
    { name: '..1', input: event({ variables: [{ name: '..1', value: 1 }] }) },
    { name: 'an array too long', input: event({ variables: [{ name: 'x', value: Array(rules.variables.maxArrayLength + 1).fill(1) }] }) },
    { name: 'a string too long', input: event({ variables: [{ name: 'x', value: 'x'.repeat(rules.variables.maxStringBytes + 1) }] }) },
    { name: 'a name bound twice', input: event({ variables: [{ name: 'x', value: 1 }], dataframes: [{ name: 'x', source: { kind: 'file', path: '/a.csv' }, bytes: 1 }] }) },
    { name: 'too many dataframes', input: event({ dataframes: Array.from({ length: rules.dataframes.maxCount + 1 }, (_, i) => ({ name: `d${i}`, source: { kind: 'file', path: '/a.csv' }, bytes: 1 })) }) },
    { name: 'not an object', input: 'script' },
    { name: 'a plot too wide', input: event({ plots: { width: 4096 } }) },
    { name: 'an unknown plot format', input: event({ plots: { format: 'gif' } }) },
    { name: 'an unknown plot option', input: event({ plots: { colour: 'red' } }) },
    { name: 'a context string too long', input: event({ context: { s: 'x'.repeat(rules.variables.maxStringBytes + 1) } }) },
    { name: 'a variable named .context beside a context', input: event({ context: {}, variables: [{ name: '.context', value: 1 }] }) },
  ])('refuses $name with a named error', ({ input }) => {
    expect(() => parseExecuteEvent(input, rules)).toThrow(InvalidExecuteEventError);
  });
});
