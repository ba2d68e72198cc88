/** Variables reach R as data, of every allowed type; bad events are refused before R starts. */
import { describe, expect, it } from 'vitest';
import { InvalidExecuteEventError } from '../../functions/execute/event.ts';
import { acceptEverything, harness } from './helpers.ts';

const h = harness();

describe('execute handler: variables', () => {
  it('binds every value type as the matching R vector', async () => {
    const response = await h.run('cat(sapply(list(s, n, i, b, ss, ns, bs, e), function(v) paste(class(v), length(v))), sep = "\\n")\ncat(s, n, i, b, ss, ns, bs, "\\n")', {
      variables: [
        { name: 's', value: 'héllo "quoted"' },
        { name: 'n', value: 2.5 },
        { name: 'i', value: 7 },
        { name: 'b', value: true },
        { name: 'ss', value: ['a', 'b'] },
        { name: 'ns', value: [1, 2, 3] },
        { name: 'bs', value: [true, false] },
        { name: 'e', value: [] },
      ],
    });
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toBe(
      'character 1\nnumeric 1\nnumeric 1\nlogical 1\ncharacter 2\nnumeric 3\nlogical 2\nlogical 0\nhéllo "quoted" 2.5 7 TRUE a b 1 2 3 TRUE FALSE \n',
    );
  });

  it('treats a value that looks like R code as a plain string', async () => {
    const response = await h.run('cat(nchar(code), "\\n")', { variables: [{ name: 'code', value: '"); system("id"); ("' }] });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '20 \n' });
  });

  it.each([
    { name: 'a name that is not syntactic', variables: [{ name: '1x', value: 1 }] },
    { name: 'a reserved word', variables: [{ name: 'function', value: 1 }] },
    { name: 'null', variables: [{ name: 'x', value: null }] },
    { name: 'a mixed array', variables: [{ name: 'x', value: [1, 'a'] }] },
    { name: 'a nested object', variables: [{ name: 'x', value: { a: 1 } }] },
    { name: 'a duplicate name', variables: [{ name: 'x', value: 1 }, { name: 'x', value: 2 }] },
    { name: 'too many variables', variables: Array.from({ length: 51 }, (_, i) => ({ name: `v${i}`, value: i })) },
  ])('refuses $name as an invalid event, before R starts', async ({ variables }) => {
    const fresh = harness();
    await expect(fresh.run('1', { variables: variables as never })).rejects.toBeInstanceOf(InvalidExecuteEventError);
    expect(fresh.reports).toHaveLength(0);
  });

  it('refuses an event with unknown fields', async () => {
    await expect(h.run('1', { extra: true } as never)).rejects.toBeInstanceOf(InvalidExecuteEventError);
  });
});

describe('execute handler: validation on both sides', () => {
  it('rejects with the TypeScript validator before R is started', async () => {
    const strict = harness({ validator: () => ({ valid: false, errors: [{ code: 'CAPABILITY_NOT_AVAILABLE', message: 'no', line: 1, column: 1 }], lint: [], durationMs: 0 }) });
    const response = await strict.run('1');
    expect(response).toMatchObject({ status: 'rejected', validation: { valid: false } });
    expect(strict.reports).toHaveLength(0);
  });

  const permissive = harness({ validator: acceptEverything });
  it.each([
    { script: 'system("id")', symbol: 'system' },
    { script: '`system`("id")', symbol: 'system' },
    { script: 'base::system("id")', symbol: 'system' },
    { script: 'utils::download.file("http://x", "f")', symbol: 'download.file' },
    { script: 'x <- .Call("C_x")', symbol: '.Call' },
  ])('the runner\'s re-validation rejects $script with CAPABILITY_NOT_AVAILABLE, as /validate does', async ({ script, symbol }) => {
    const response = await permissive.run(script);
    expect(response.status).toBe('rejected');
    expect(response.consoleOutput).toBe('');
    expect(response.validation?.errors).toContainEqual(expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE', symbol }));
  });

  it.each([
    'x <- list(); x$get <- 1; x$system',
    'library(dplyr, warn.conflicts = FALSE); 1',
    'options(digits = 3); pi',
    'lapply(1:2, "sqrt")',
    'f <- get("sum"); f(1:3)',
    'x <- 0; g <- function() x <<- 1; g(); x',
    'stats:::median.default(c(1, 3))',
    'p <- "stats"; library(p, character.only = TRUE); 1',
    'eval(parse(text = "1 + 1"))',
  ])('the runner accepts %s', async (script) => {
    const response = await permissive.run(script);
    expect(response.status).toBe('ok');
  });

  it('a capability reached through a string the static checks cannot see fails below R, with the same words', async () => {
    const response = await permissive.run('f <- paste0("sys", "tem")\nlapply("id", f)');
    expect(response).toMatchObject({
      status: 'error',
      error: expect.stringContaining('jube-r: system runs a program: programs cannot run in this sandbox'),
    });
  });

  it.each([
    ['a bare command string', 'library(data.table)\nfread("echo a,b")'],
    ['cmd =', 'data.table::fread(cmd = "echo a,b")'],
    ['a command passed as a function value', 'lapply("echo a,b", data.table::fread)'],
  ])('fread never runs a shell command (%s): the capsule refuses the program', async (_shape, script) => {
    const response = await permissive.run(script);
    expect(response.status).toBe('error');
    expect(response.error).toMatch(/jube-r: (system|pipe) runs a program|Permission denied|cannot (popen|open)/);
  });

  it('fread still reads files and literal text', async () => {
    const script = [
      'library(data.table)',
      'f <- tempfile(fileext = ".csv"); writeLines(c("q", "1", "2"), f)',
      'cat(sum(fread(f)$q), sum(data.table::fread("q\\n3\\n4")$q), "\\n")',
    ].join('\n');
    const response = await permissive.run(script);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '3 7 \n' });
  });
});
