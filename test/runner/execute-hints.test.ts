/**
 * The hints an error comes back with, through the execute handler: the next step an agent needs,
 * and never a name the script did not have in scope.
 */
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const h = generous(harness());
const hintsOf = async (script: string): Promise<string[] | undefined> => (await h.run(script, { timeoutSeconds: 30 })).errorDetails?.hints;
const FRESH = (name: string) => `if an earlier call made \`${name}\`: every call starts fresh and keeps nothing from the ones before, so make it in this script (calls that send one X-Jube-Session keep their workspace)`;

describe('a name not found', () => {
  it('a typo of a variable gets the variable, and nothing about earlier calls', async () => {
    expect(await hintsOf('total <- 1\ntotl + 1')).toEqual(['did you mean `total`?']);
  });

  it('a name an earlier call made (never assigned here) says every call starts fresh, and offers no unrelated column', async () => {
    // `id` is two edits from `fit`: too far for a four-letter name.
    expect(await hintsOf('df <- data.frame(id = 1:3)\npredict(fit, newdata = df)')).toEqual(['`df` has the columns `id`', FRESH('fit')]);
  });

  it('a column with no close name lists the data frame\'s columns', async () => {
    expect(await hintsOf('library(dplyr, warn.conflicts = FALSE)\nd <- data.frame(order_date = 1, amount = 2)\nmutate(d, z = amt * 2)')).toEqual([
      '`d` has the columns `order_date`, `amount`',
      FRESH('amt'),
    ]);
  });

  it('a close column is offered with its data frame', async () => {
    expect(await hintsOf('d <- data.frame(order_date = 1, amount = 2)\nsubset(d, amuont > 1)')).toEqual(['did you mean `amount` (a column of `d`)?']);
  });
});

describe('the packages\' own words for a missing column', () => {
  it('tidyselect: "Column `x` doesn\'t exist" gets the close column', async () => {
    expect(await hintsOf('library(dplyr, warn.conflicts = FALSE)\nd <- data.frame(order_date = 1, amount = 2)\nselect(d, orderdate)')).toEqual([
      'did you mean `order_date` (a column of `d`)?',
    ]);
  });

  it('data.table\'s on= names a column one table lacks: the close one of the other', async () => {
    expect(await hintsOf('library(data.table)\nA <- data.table(id = 1:3, v = 4:6)\nB <- data.table(kid = 1:2, w = 7:8)\nA[B, on = "id"]')).toEqual([
      'did you mean `kid` (a column of `B`)?',
    ]);
  });

  it('a message that names no column ("undefined columns selected", merge\'s `by`) lists the columns', async () => {
    expect(await hintsOf('d <- data.frame(order_date = 1, amount = 2)\nd[, "amt"]')).toEqual(['`d` has the columns `order_date`, `amount`']);
    expect(await hintsOf('a <- data.frame(id = 1, x = 2)\nb <- data.frame(key = 1, y = 3)\nmerge(a, b, by = "id")')).toEqual([
      '`a` has the columns `id`, `x`',
      '`b` has the columns `key`, `y`',
    ]);
  });
});
