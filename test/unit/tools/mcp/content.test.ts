/** The API's answers as MCP tool results: what a model reads first, what a host shows. */
import { describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../../../layers/contract/execute.ts';
import { McpExecuteResultSchema } from '../../../../functions/tools/mcp/content.ts';
import { VALIDATION_ERROR_CODES } from '../../../../layers/contract/validation.ts';
import { apiErrorResult, executeResult, findingLines, outUri, validationResult, VALIDATION_ADVICE } from '../../../../functions/tools/mcp/content.ts';

const base = {
  consoleOutput: '',
  error: null,
  warnings: [],
  durationMs: 12,
  timedOut: false,
  rVersion: '4.2.2',
  timestamp: '2026-01-01T00:00:00.000Z',
};
const response = (fields: Partial<ExecuteResponse>): ExecuteResponse => ExecuteResponseSchema.parse({ ...base, status: 'ok', ...fields });
const texts = (result: ReturnType<typeof executeResult>) => result.content.filter((c) => c.type === 'text').map((c) => c.text);

describe('executeResult', () => {
  it('puts the cause, line and hints of a script error first (the runner\'s text), as a tool error with the full response', () => {
    const failed = response({
      status: 'error',
      error: 'Error in x * k: non-numeric argument to binary operator\nAt line 5: scale_by(values, "two")\nHint: `k` is a character string',
      consoleOutput: 'step 1\n',
      errorType: 'execution',
      retryable: true,
      errorDetails: {
        class: ['simpleError', 'error', 'condition'],
        message: 'non-numeric argument to binary operator',
        call: 'x * k',
        line: 5,
        column: 1,
        traceback: [{ call: 'scale_by(values, "two")', line: 5, column: 1 }],
      },
    });
    const result = executeResult(failed);
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toMatch(/^Error in x \* k: non-numeric argument to binary operator\nAt line 5: scale_by\(values, "two"\)\nHint: `k` is a character string\nin: x \* k\n/);
    expect(texts(result)[1]).toBe('console:\nstep 1\n');
    expect(result.structuredContent).toEqual(failed);
  });

  it('says a timeout is one', () => {
    const result = executeResult(response({ status: 'error', timedOut: true, error: 'the script exceeded its 1 s time limit', durationMs: 1000 }));
    expect(texts(result)[0]).toBe('timed out after 1000 ms: the script exceeded its 1 s time limit');
    expect(result.isError).toBe(true);
  });

  it('gives the console and the value as text, each plot as an image and each out/ file as a resource', () => {
    const csv = Buffer.from('a,b\n1,2\n').toString('base64');
    const result = executeResult(
      response({
        consoleOutput: '[1] 4\n',
        value: { kind: 'json', class: ['numeric'], json: [4] },
        plots: [{ mimeType: 'image/png', width: 64, height: 64, bytes: 3, data: 'iVBO' }],
        files: [
          { name: 'dir/t a.csv', mimeType: 'text/csv', bytes: 8, sha256: 'x', data: csv },
          { name: 'p.bin', mimeType: 'application/octet-stream', bytes: 2, sha256: 'y', data: 'AAE=' },
          { name: 'big.csv', mimeType: 'text/csv', truncated: true },
        ],
        warnings: ['careful'],
      }),
    );
    expect(result.isError).toBeUndefined();
    expect(texts(result)).toEqual([
      'ok in 12 ms (R 4.2.2)',
      'console:\n[1] 4\n',
      'value (numeric):\n[4]',
      'warnings:\n- careful',
      'notes:\n- big.csv: not returned (over the file caps)',
    ]);
    expect(result.content.filter((c) => c.type !== 'text')).toEqual([
      { type: 'image', data: 'iVBO', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'jube-r://out/dir/t%20a.csv', mimeType: 'text/csv', text: 'a,b\n1,2\n' } },
      { type: 'resource', resource: { uri: 'jube-r://out/p.bin', mimeType: 'application/octet-stream', blob: 'AAE=' } },
    ]);
    // structuredContent carries no bytes content has: each returned plot and file names its content item.
    const structured = McpExecuteResultSchema.parse(result.structuredContent);
    expect(JSON.stringify(structured)).not.toContain('iVBO');
    expect(JSON.stringify(structured)).not.toContain(csv);
    expect(structured.plots).toEqual([{ mimeType: 'image/png', width: 64, height: 64, bytes: 3, content: 5 }]);
    expect(structured.files).toEqual([
      { name: 'dir/t a.csv', mimeType: 'text/csv', bytes: 8, sha256: 'x', content: 6 },
      { name: 'p.bin', mimeType: 'application/octet-stream', bytes: 2, sha256: 'y', content: 7 },
      { name: 'big.csv', mimeType: 'text/csv', truncated: true },
    ]);
    for (const ref of [...structured.plots!, ...structured.files!]) if ('content' in ref && ref.content !== undefined) expect(result.content[ref.content]!.type).not.toBe('text');
  });

  it('shows a rejection with each finding\'s code, place and advice, as a tool error', () => {
    const result = executeResult(
      response({
        status: 'rejected',
        error: 'forbidden',
        errorType: 'execution',
        retryable: true,
        validation: { valid: false, errors: [{ code: 'CAPABILITY_NOT_AVAILABLE', message: 'system runs a program', line: 2, column: 3, symbol: 'system' }], lint: [], durationMs: 1 },
      }),
    );
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toBe(
      `rejected: the script was not run. Fix each finding (r_validate checks a script without running it):\n2:3 CAPABILITY_NOT_AVAILABLE system runs a program (system); ${VALIDATION_ADVICE.CAPABILITY_NOT_AVAILABLE}`,
    );
  });
});

describe('validationResult', () => {
  it('is not a tool error for an invalid script: the answer is the findings', () => {
    const result = validationResult({ valid: false, errors: [{ code: 'SYNTAX_ERROR', message: 'unexpected )', line: 1, column: 4 }], lint: [], durationMs: 1 });
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: `invalid: r_execute would reject this script without running it. Fix each finding:\n1:4 SYNTAX_ERROR unexpected ); ${VALIDATION_ADVICE.SYNTAX_ERROR}` }]);
  });

  it('has advice for every validation code', () => {
    expect(Object.keys(VALIDATION_ADVICE).sort()).toEqual([...VALIDATION_ERROR_CODES].sort());
    expect(findingLines([])).toEqual([]);
  });
});

describe('apiErrorResult', () => {
  it('names each field issue and what to do', () => {
    const result = apiErrorResult(400, '400 INVALID_REQUEST: bad body', {
      code: 'INVALID_REQUEST',
      message: 'bad body',
      requestId: 'r-1',
      issues: [{ path: 'plots.width', message: 'width must be at least 64 pixels' }],
    });
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: '400 INVALID_REQUEST: bad body\nplots.width: width must be at least 64 pixels\nfix the request fields named above and call again\nrequestId r-1' }],
    });
  });

  it('warns that a 504 may have run the script', () => {
    expect(apiErrorResult(504, '504: timeout', undefined).content[0]).toMatchObject({ text: expect.stringContaining('may have run') });
  });
});

it('outUri encodes each segment of a file name', () => {
  expect(outUri('a b/c#d.txt')).toBe('jube-r://out/a%20b/c%23d.txt');
});
