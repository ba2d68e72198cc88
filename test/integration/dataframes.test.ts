/**
 * Tenant-scoped dataframes end to end: the local stack (`jube-r serve`) in a separate process,
 * real HTTP, real R, a data directory filled here. Every way a pointer can fail must give the
 * same answer byte for byte, apart from the request id.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { postJson, REPO, startStack, type RunningStack } from './local-stack.ts';
import { routePath } from '../../layers/contract/api.ts';

const execFileAsync = promisify(execFile);

const MAX_TABLE = 2048;
const MAX_TOTAL = 4096;

/** A one-column CSV of exactly `bytes` bytes: header `v`, then rows of `1`, the last padded. */
function csvOfSize(bytes: number): string {
  const rows = Math.floor((bytes - 2) / 2);
  const base = `v\n${'1\n'.repeat(rows)}`;
  return bytes - base.length === 1 ? `v\n${'1\n'.repeat(rows - 1)}10\n` : base;
}

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

let stack: RunningStack | undefined;
let base: string;

async function execute(body: unknown, tenant: string): Promise<Answer> {
  const answer = await postJson(`${stack!.url}${routePath('execute', tenant)}`, body);
  return { status: answer.status, contentType: answer.headers.get('content-type'), text: answer.text, body: answer.json };
}

/** The raw body with the request id's value blanked: what must be identical across failures. */
function withoutRequestId(answer: Answer): string {
  const id = answer.body['requestId'];
  expect(typeof id).toBe('string');
  return answer.text.replace(JSON.stringify(id), '"<requestId>"');
}

const RESULT = (expr: string) =>
  `cat("<<<JUBE_RESULT_START>>>", jsonlite::toJSON(${expr}, auto_unbox = TRUE, digits = NA), "<<<JUBE_RESULT_END>>>", sep = "")`;

beforeAll(async () => {
  // Prepare: two tenants (and the default one), plain and gzip tables, hostile entries, a secret outside.
  base = await mkdtemp(path.join(tmpdir(), 'jube-dataframes-it-'));
  const data = path.join(base, 'data');
  const put = async (relative: string, content: string | Buffer) => {
    await mkdir(path.dirname(path.join(data, relative)), { recursive: true });
    await writeFile(path.join(data, relative), content);
  };
  await put('acme/measurements.csv', 'id,value,label,flag\n1,2.5,a,TRUE\n2,3.5,b,FALSE\n3,6,c,TRUE\n');
  await put('acme/regions.csv.gz', gzipSync('region,weight\nnorth,10\nsouth,32\n'));
  await put('acme/at-max.csv', csvOfSize(MAX_TABLE));
  await put('acme/at-max-2.csv', csvOfSize(MAX_TABLE));
  await put('acme/over-max.csv', csvOfSize(MAX_TABLE + 1));
  await put('acme/tiny.csv', '\n');
  await put('acme/inflates-to-max.csv.gz', gzipSync(csvOfSize(MAX_TABLE)));
  await put('acme/inflates-over-max.csv.gz', gzipSync(csvOfSize(MAX_TABLE + 1)));
  await put('globex/secret.csv', 'secret\n42\n');
  await put('default/plain.csv', 'n\n7\n');
  await writeFile(path.join(base, 'outside.csv'), 'outside\n1\n');
  await symlink(path.join(base, 'outside.csv'), path.join(data, 'acme/escape.csv'));
  await symlink('../globex/secret.csv', path.join(data, 'acme/crossing.csv'));
  stack = await startStack({
    JUBE_R_DATA_DIR: data,
    JUBE_R_MAX_DATAFRAME_BYTES: String(MAX_TABLE),
    JUBE_R_MAX_DATAFRAMES_TOTAL_BYTES: String(MAX_TOTAL),
  });
});

afterAll(async () => {
  await stack?.stop();
  if (base) await rm(base, { recursive: true, force: true });
});

describe('a table uploaded with jube-r data put', () => {
  it('is bound by the pointer the upload printed, for its tenant only', async () => {
    // Prepare: a gzip table on disk, uploaded through the CLI into the stack's data directory.
    const file = path.join(base, 'upload.csv.gz');
    await writeFile(file, gzipSync('city,count\nlyon,3\nnantes,4\n'));
    const put = await execFileAsync(process.execPath, [path.join(REPO, 'scripts/jube-r.mjs'), 'data', 'put', file, '--tenant', 'acme', '--pointer', 'uploaded-cities', '--data-dir', path.join(base, 'data')], { cwd: REPO });
    const printed = JSON.parse(put.stdout) as { tenant: string; dataPointer: string; stored: string };
    expect(printed).toEqual({ tenant: 'acme', dataPointer: 'uploaded-cities', stored: path.join(base, 'data', 'acme', 'uploaded-cities.csv.gz') });

    // Act
    const mine = await execute({ script: RESULT('list(total = sum(t$count), cities = t$city)'), dataframes: [{ name: 't', dataPointer: printed.dataPointer }] }, 'acme');
    const theirs = await execute({ script: RESULT('nrow(t)'), dataframes: [{ name: 't', dataPointer: printed.dataPointer }] }, 'globex');

    // Assess
    expect(mine.body).toMatchObject({ status: 'ok', result: { total: 7, cities: ['lyon', 'nantes'] } });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'DATA_POINTER_UNRESOLVED' });
  });
});

describe('POST /execute with dataframes', () => {
  it('binds a tenant\'s table as a data.frame the script computes on', async () => {
    // Act
    const answer = await execute(
      {
        script: `stopifnot(is.data.frame(m))\n${RESULT('list(mean = mean(m$value), n = nrow(m))')}`,
        dataframes: [{ name: 'm', dataPointer: 'measurements' }],
      },
      'acme',
    );
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ok', result: { mean: 4, n: 3 } });
  });

  it('infers column types and keeps strings as character, not factors', async () => {
    const answer = await execute(
      {
        script: RESULT(
          'list(id = is.numeric(m$id), value = is.double(m$value), label = is.character(m$label), factor = is.factor(m$label), flag = is.logical(m$flag))',
        ),
        dataframes: [{ name: 'm', dataPointer: 'measurements' }],
      },
      'acme',
    );
    expect(answer.body).toMatchObject({ status: 'ok', result: { id: true, value: true, label: true, factor: false, flag: true } });
  });

  it('binds two tables, one of them gzip, next to a variable', async () => {
    const answer = await execute(
      {
        script: RESULT('list(rows = nrow(m) + nrow(r), weight = sum(r$weight) * k, regions = r$region)'),
        variables: [{ name: 'k', value: 2 }],
        dataframes: [
          { name: 'm', dataPointer: 'measurements' },
          { name: 'r', dataPointer: 'regions' },
        ],
      },
      'acme',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ok', result: { rows: 5, weight: 84, regions: ['north', 'south'] } });
  });

  it("resolves under the path's tenant, whatever its name (a tenant called default is one like any other)", async () => {
    const answer = await execute({ script: RESULT('list(n = d$n)'), dataframes: [{ name: 'd', dataPointer: 'plain' }] }, 'default');
    expect(answer.body).toMatchObject({ status: 'ok', result: { n: 7 } });
  });

  it('refuses a dataframe named like a variable with 400', async () => {
    const answer = await execute(
      { script: '1', variables: [{ name: 'm', value: 1 }], dataframes: [{ name: 'm', dataPointer: 'measurements' }] },
      'acme',
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('unresolved data pointers', () => {
  const script = RESULT('list(n = nrow(d))');
  const cases: readonly [string, string, readonly string[]][] = [
    ['missing', 'acme', ['nothing-here']],
    ['another tenant\'s', 'acme', ['secret']],
    ['a traversal attempt', 'acme', ['../globex/secret']],
    ['an encoded traversal attempt', 'acme', ['..%2Fglobex%2Fsecret']],
    ['malformed', 'acme', ['not a pointer!']],
    ['empty', 'acme', ['']],
    ['a symlink out of the data directory', 'acme', ['escape']],
    ['a symlink into another tenant', 'acme', ['crossing']],
    ['another tenant\'s, from the tenant called default', 'default', ['measurements']],
    ['one bad among good ones', 'acme', ['measurements', 'secret']],
  ];

  it.each(cases)('answers %s with the one generic 404 DATA_POINTER_UNRESOLVED', async (_label, tenant, pointers) => {
    // Act
    const answer = await execute({ script, dataframes: pointers.map((dataPointer, i) => ({ name: `d${i || ''}`, dataPointer })) }, tenant);
    // Assess
    expect(answer.status).toBe(404);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      code: 'DATA_POINTER_UNRESOLVED',
      message: `One or more data pointers could not be resolved for tenant '${tenant}'; nothing was run.`,
      requestId: expect.any(String),
    });
  });

  it('gives byte-identical bodies for every failure, apart from the request id and the tenant asked', async () => {
    // Act: the same table name each time, so only the pointer (and tenant) differ.
    const answers = await Promise.all(cases.map(([, tenant, pointers]) => execute({ script, dataframes: pointers.map((dataPointer, i) => ({ name: `d${i || ''}`, dataPointer })) }, tenant)));
    // Assess
    const bodies = new Set(answers.map((a, i) => withoutRequestId(a).replace(`'${cases[i]![1]}'`, "'T'")));
    expect(bodies.size).toBe(1);
    expect(new Set(answers.map((a) => `${a.status} ${a.contentType}`)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body['requestId'])).size).toBe(answers.length);
  });

  it('lets the owning tenant read the table another tenant was refused', async () => {
    const answer = await execute({ script: RESULT('list(s = d$secret)'), dataframes: [{ name: 'd', dataPointer: 'secret' }] }, 'globex');
    expect(answer.body).toMatchObject({ status: 'ok', result: { s: 42 } });
  });
});

describe("the path's tenant", () => {
  it.each([
    ['upper case', 'ACME', 400, 'INVALID_TENANT'],
    ['too long', 'a'.repeat(64), 400, 'INVALID_TENANT'],
    // Not one path segment once decoded: no route has that shape.
    ['a traversal', '../acme', 404, 'NOT_FOUND'],
    ['a slash', 'acme/x', 404, 'NOT_FOUND'],
  ])('refuses a tenant that is %s before any data is resolved', async (_label, tenant, status, code) => {
    const answer = await execute({ script: RESULT('list(n = nrow(d))'), dataframes: [{ name: 'd', dataPointer: 'measurements' }] }, tenant);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ code });
  });
});

describe('dataframe size limits (2048 bytes per table, 4096 in total)', () => {
  it('runs with a table of exactly the per-table limit', async () => {
    const answer = await execute({ script: RESULT('list(n = nrow(big))'), dataframes: [{ name: 'big', dataPointer: 'at-max' }] }, 'acme');
    expect(answer.body).toMatchObject({ status: 'ok', result: { n: 1023 } });
  });

  it('refuses a table one byte over with 413 naming the table, not the pointer', async () => {
    const answer = await execute({ script: '1', dataframes: [{ name: 'big', dataPointer: 'over-max' }] }, 'acme');
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'DATAFRAME_TOO_LARGE', message: expect.stringContaining('"big"') });
    expect(answer.text).not.toContain('over-max');
  });

  it('runs with tables totalling exactly the total limit', async () => {
    const answer = await execute(
      {
        script: RESULT('list(n = nrow(a) + nrow(b))'),
        dataframes: [
          { name: 'a', dataPointer: 'at-max' },
          { name: 'b', dataPointer: 'at-max-2' },
        ],
      },
      'acme',
    );
    expect(answer.body).toMatchObject({ status: 'ok', result: { n: 2046 } });
  });

  it('refuses tables totalling one byte over the total limit with 413', async () => {
    const answer = await execute(
      {
        script: '1',
        dataframes: [
          { name: 'a', dataPointer: 'at-max' },
          { name: 'b', dataPointer: 'at-max-2' },
          { name: 'c', dataPointer: 'tiny' },
        ],
      },
      'acme',
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'DATAFRAME_TOO_LARGE' });
  });

  it('runs with a gzip table that inflates to exactly the per-table limit', async () => {
    const answer = await execute({ script: RESULT('list(n = nrow(z))'), dataframes: [{ name: 'z', dataPointer: 'inflates-to-max' }] }, 'acme');
    expect(answer.body).toMatchObject({ status: 'ok', result: { n: 1023 } });
  });

  it('does not run a small gzip table that inflates one byte over the limit', async () => {
    // The stored size passes the resolver; the execute function counts the inflated bytes.
    const answer = await execute({ script: RESULT('list(n = nrow(z))'), dataframes: [{ name: 'z', dataPointer: 'inflates-over-max' }] }, 'acme');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'error', error: expect.stringMatching(/'z'.*limit.*not run/) });
    expect(answer.body['result']).toBeUndefined();
    expect(answer.body['consoleOutput']).toBe('');
  });
});
