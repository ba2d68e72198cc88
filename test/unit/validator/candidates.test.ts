/**
 * The lexical pre-scan behind the fast walk may over-report but never miss: on tricky lexical
 * shapes the fast walk must report exactly what the full reference walk reports.
 */
import { describe, expect, it } from 'vitest';
import { findCandidates, mergeInterests } from '../../../layers/validator/candidates.ts';
import { findings, fullWalkValidator, validator } from './support.ts';

describe('candidate pre-scan', () => {
  it.each([
    ['a name after a number', 'x <- c(1,system)'],
    ['a name after a hex number', 'x <- 0x1F+get("a")'],
    ['a name after an exponent', 'x <- 1e-3*eval(1)'],
    ['a name after a non-ASCII character', 'é <- 1; system("id")'],
    ['a name after a zero-width space', 'x <- 1\n\u200bsystem("id")'],
    ['CR-only line endings', 'x <- 1\rsystem("id")\r'],
    ['a comment ended by a CR alone', '# note\rsystem("id")'],
    ['a custom operator cut by a CR', 'x %a\rsystem("id")'],
    ['a name right after a string', 'x <- paste("a",system("id"))'],
    ['a name right after a raw string', 'x <- c(r"(a)",system("id"))'],
    ['a hash inside a string', 'x <- "#"; system("id")'],
    ['a quote inside a comment', '# it\'s\nsystem("id")'],
    ['an escaped quote inside a string', 'x <- "a\\"b"; system("id")'],
    ['a custom operator', 'x %system% y; `%system%` <- function(a, b) 1'],
    ['a top-level = after brackets', 'f(a = 1)\nx = 2\n{ y = 3 }'],
    ['1 : with blanks around the colon', 'x <- 1 : length(y)'],
    ['strings called, past blanks, a line end and a comment', 'x <- "median"(1:3)\ny <- stats::\'median\' (1)\nz <- (r"(mean)" # c\n(2))'],
  ])('agrees with the full walk on %s', async (_, script) => {
    expect(findings((await validator())(script))).toEqual(findings((await fullWalkValidator())(script)));
  });

  it('flags only interesting tokens, at their start offsets', () => {
    const interest = mergeInterests([{ names: ['system'], operators: ['<<-'], topLevelOperators: ['='] }]);
    const script = 'a = 1; f(b = system); x <<- "system"; y <- systems';
    expect(findCandidates(script, interest)).toEqual([2, 13, 24, 28]);
  });

  it('flags names a test picks out, in every lexical form', () => {
    const interest = mergeInterests([{ nameTest: (name) => name.startsWith('Ops.') }]);
    expect(findCandidates('Ops.k <- 1; `Ops.j` <- 2; "Ops.i" <- 3; Opsx <- 4', interest)).toEqual([0, 12, 26]);
    expect(mergeInterests([{ names: ['a'] }]).nameTest).toBeUndefined();
  });

  it('flags a string followed by ( when asked, and no other string', () => {
    const interest = mergeInterests([{ calledStrings: true }]);
    expect(findCandidates('a <- "f"(1); b <- "g" \n (2); c <- "h"; d <- c("i", r"(j)"(3))', interest)).toEqual([5, 18, 51]);
  });
});
