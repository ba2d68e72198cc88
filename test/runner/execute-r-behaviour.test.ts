/**
 * R's own behaviour, kept through the execute handler: what the console would show is what the
 * response shows, and where the service differs from a console (files come back only from out/,
 * the structured result is `result`) a note says so.
 */
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const h = generous(harness());

describe('the console as R shows it', () => {
  it('data.table\'s `DT[, x := y]` prints nothing, as at the console; `DT` alone prints', async () => {
    const r = await h.run('library(data.table)\nDT <- data.table(a = 1:2)\nDT[, b := a * 2]\nDT[, c := 1][]\ncat("--\\n")\nDT\n');
    expect(r.error).toBeNull();
    expect(r.consoleOutput).toBe('   a b c\n1: 1 2 1\n2: 2 4 1\n--\n   a b c\n1: 1 2 1\n2: 2 4 1\n');
  });

  it('a warning keeps its chained causes, as R prints them', async () => {
    const r = await h.run('f <- function() rlang::warn("Computation failed", parent = simpleError("the package `hexbin` is required"))\nf()\n');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^Computation failed\nCaused by error:\n! the package `hexbin` is required$/);
  });

  it('there is no value after an invisible result, and the last visible value after a visible one', async () => {
    expect((await h.run('x <- 1:3\ncat("done\\n")')).value).toBeUndefined();
    expect((await h.run('x <- 1:3\ninvisible(x)')).value).toBeUndefined();
    expect((await h.run('x <- 1:3\nx')).value).toEqual({ kind: 'json', class: ['integer'], json: [1, 2, 3] });
  });
});

describe('inputs as jsonlite reads them', () => {
  it('a null in a variable\'s array is NA of the array\'s type', async () => {
    const r = await h.run('cat(is.na(a), class(a), is.na(b), class(b), is.na(c), class(c), is.na(d), class(d), "\\n")', {
      variables: [
        { name: 'a', value: [1, null, 3] },
        { name: 'b', value: [null, 'x'] },
        { name: 'c', value: [true, null] },
        { name: 'd', value: [null] as unknown as boolean[] },
      ],
    });
    expect(r).toMatchObject({ status: 'ok', consoleOutput: 'FALSE TRUE FALSE numeric TRUE FALSE character FALSE TRUE logical TRUE logical \n' });
  });
});

describe('where the service differs from a console, a note says so', () => {
  it('the marker block a `result` was parsed from is taken out of consoleOutput', async () => {
    const r = await h.run('cat("before\\n")\ncat("<<<JUBE_RESULT_START>>>", jsonlite::toJSON(list(n = 3), auto_unbox = TRUE), "<<<JUBE_RESULT_END>>>\\n", sep = "")\ncat("after\\n")');
    expect(r).toMatchObject({ status: 'ok', consoleOutput: 'before\nafter\n', result: { n: 3 } });
    expect(r.notes).toContain('the structured result printed between the markers was taken out of consoleOutput: it is `result`');
  });

  it('a block that is not valid JSON stays in the console, with the warning', async () => {
    const r = await h.run('cat("<<<JUBE_RESULT_START>>>{oops<<<JUBE_RESULT_END>>>\\n")');
    expect(r.consoleOutput).toBe('<<<JUBE_RESULT_START>>>{oops<<<JUBE_RESULT_END>>>\n');
    expect(r.resultWarning).toMatch(/not valid JSON/);
  });

  it('a plot or file written outside out/ is named, with where to write it', async () => {
    const r = await h.run('png("p.png"); plot(1); invisible(dev.off())\nwrite.csv(mtcars, "m.csv")\nwrite.csv(mtcars, "out/kept.csv")');
    expect((r.files ?? []).map((f) => f.name)).toEqual(['kept.csv']);
    expect(r.notes).toContain('"m.csv", "p.png" were written in the working directory, which is not returned: write files for the caller in out/ (ggsave("out/plot.png"), png("out/plot.png"), write.csv(d, "out/d.csv"))');
  });

  it('a script that writes only to out/ gets no such note', async () => {
    const r = await h.run('write.csv(mtcars, "out/kept.csv")');
    expect((r.notes ?? []).filter((n) => n.includes('working directory'))).toEqual([]);
  });
});
