/**
 * GET /help through the API handler, against the help pages `npm run setup` rendered from the
 * installed Rd (layers/packages/help.json.gz): usage and arguments first, aliases, the cap at its
 * edge, the nearest topics for one that does not exist, and no process started for any of it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { ErrorBodySchema, HealthResponseSchema, HelpResponseSchema } from '../../../layers/contract/api.ts';
import { createApi } from '../../../functions/api/create-api.ts';
import { capText } from '../../../functions/api/routes/help.ts';
import { HelpMissingError, loadHelp } from '../../../layers/packages/help.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { context, proxyEvent } from './events.ts';

const spawned = vi.hoisted(() => [] as string[]);
vi.mock('node:child_process', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:child_process')>();
  const spy = <F extends (...args: never[]) => unknown>(name: string, f: F) =>
    ((...args: Parameters<F>) => {
      spawned.push(`${name} ${String(args[0])}`);
      return f(...args);
    }) as F;
  return { ...real, spawn: spy('spawn', real.spawn), execFile: spy('execFile', real.execFile), exec: spy('exec', real.exec), fork: spy('fork', real.fork), spawnSync: spy('spawnSync', real.spawnSync), execFileSync: spy('execFileSync', real.execFileSync) };
});

const silent = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
const makeApi = (env: Record<string, string> = {}) => {
  const fullEnv = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...env };
  return createApi({ env: fullEnv, config: readServiceConfig(fullEnv), logger: silent });
};
const api = makeApi();

function helpEvent(query: Record<string, string> | null): APIGatewayProxyEvent {
  return { ...proxyEvent('GET', '/help'), queryStringParameters: query };
}
async function call(query: Record<string, string> | null, on = api) {
  const result = await on.handler(helpEvent(query), context());
  return { status: result.statusCode, body: JSON.parse(result.body) as Record<string, unknown> };
}

const path = process.env['PATH'];
beforeEach(() => {
  // No Rscript anywhere: a lookup that needed R would fail.
  process.env['PATH'] = '/nonexistent';
});
afterEach(() => {
  process.env['PATH'] = path;
});

describe('GET /help', () => {
  it("returns dplyr's mutate page with its title, then usage and arguments, and starts no process", async () => {
    const { status, body } = await call({ topic: 'mutate', package: 'dplyr' });
    expect(status).toBe(200);
    const page = HelpResponseSchema.parse(body);
    expect(page).toMatchObject({ topic: 'mutate', package: 'dplyr', page: 'mutate', title: 'Create, modify, and delete columns' });
    expect(page.aliases).toEqual(expect.arrayContaining(['mutate', 'transmute']));
    const lines = page.text.split('\n');
    expect(lines[0]).toBe('Create, modify, and delete columns');
    const usage = lines.indexOf('Usage:');
    const args = lines.indexOf('Arguments:');
    const description = lines.indexOf('Description:');
    expect(usage).toBeGreaterThan(0);
    expect(args).toBeGreaterThan(usage);
    expect(description).toBeGreaterThan(args);
    expect(page.text).toContain('mutate(.data, ...)');
    expect(page.text).toMatch(/\.keep = c\("all", "used", "unused", "none"\)/);
    expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(16 * 1024);
    expect(spawned).toEqual([]);
  });

  it('finds a page by any of its aliases, in any package when none is named', async () => {
    const transmute = HelpResponseSchema.parse((await call({ topic: 'transmute', package: 'dplyr' })).body);
    expect(transmute.page).toBe('mutate');
    const mutate = HelpResponseSchema.parse((await call({ topic: 'mutate' })).body);
    expect(mutate.package).toBe('dplyr');
    const sd = HelpResponseSchema.parse((await call({ topic: 'sd' })).body);
    expect(sd).toMatchObject({ package: 'stats', page: 'sd' });
    expect(sd.text).toContain('sd(x, na.rm = FALSE)');
  });

  it('names the other packages with a page for the same topic', async () => {
    const filter = HelpResponseSchema.parse((await call({ topic: 'filter' })).body);
    const stats = HelpResponseSchema.parse((await call({ topic: 'filter', package: 'stats' })).body);
    expect(filter.package).toBe('dplyr');
    expect(filter.alsoIn).toContainEqual({ topic: 'filter', package: 'stats' });
    expect(stats.package).toBe('stats');
    expect(stats.alsoIn).toContainEqual({ topic: 'filter', package: 'dplyr' });
  });

  it('answers a topic nobody has with 404 HELP_TOPIC_NOT_FOUND and the nearest installed topics', async () => {
    const { status, body } = await call({ topic: 'mutat', package: 'dplyr' });
    expect(status).toBe(404);
    const error = ErrorBodySchema.parse(body);
    expect(error.code).toBe('HELP_TOPIC_NOT_FOUND');
    expect(error.suggestions?.[0]).toEqual({ topic: 'mutate', package: 'dplyr' });
    expect(error.suggestions!.length).toBeLessThanOrEqual(5);
    const anywhere = ErrorBodySchema.parse((await call({ topic: 'summarize_all_of_it' })).body);
    expect(anywhere.code).toBe('HELP_TOPIC_NOT_FOUND');
    const uninstalled = ErrorBodySchema.parse((await call({ topic: 'mutate', package: 'plyr' })).body);
    expect(uninstalled).toMatchObject({ code: 'HELP_TOPIC_NOT_FOUND', message: expect.stringContaining('plyr is not an installed package') });
    expect(uninstalled.suggestions).toContainEqual({ topic: 'mutate', package: 'dplyr' });
  });

  it('refuses a missing topic and an unknown parameter with the API codes', async () => {
    expect((await call(null)).body).toMatchObject({ code: 'INVALID_REQUEST', issues: [{ path: 'topic' }] });
    expect((await call({ topic: '' })).body).toMatchObject({ code: 'INVALID_REQUEST' });
    expect((await call({ topic: 'mean', pkg: 'base' })).body).toMatchObject({ code: 'UNKNOWN_FIELD', issues: [{ path: 'pkg' }] });
    expect((await api.handler(proxyEvent('POST', '/help'), context())).statusCode).toBe(405);
  });

  it('cuts a page at JUBE_R_MAX_HELP_BYTES, which /health reports', async () => {
    const small = makeApi({ JUBE_R_MAX_HELP_BYTES: '1024' });
    const health = HealthResponseSchema.parse(JSON.parse((await small.handler(proxyEvent('GET', '/health', { query: { detail: 'full' } }), context())).body));
    expect(health.limits.maxHelpBytes).toBe(1024);
    const page = HelpResponseSchema.parse((await call({ topic: 'mutate', package: 'dplyr' }, small)).body);
    expect(page.truncated).toBe(true);
    expect(page.bytes).toBeGreaterThan(1024);
    expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(1024);
    expect(page.text).toContain('Usage:');
    expect(page.text).toMatch(/help page cut at 1024 of \d+ bytes/);
  });
});

describe('capText', () => {
  it('keeps a text of exactly the cap and cuts one byte more at a line end', () => {
    const text = `${'a'.repeat(99)}\n${'é'.repeat(200)}`;
    const bytes = Buffer.byteLength(text);
    expect(capText(text, bytes)).toEqual({ text, truncated: false });
    const cut = capText(text, bytes - 1);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(bytes - 1);
    expect(cut.text.startsWith(`${'a'.repeat(99)}\n[... help page cut at ${bytes - 1} of ${bytes} bytes`)).toBe(true);
  });

  it('never splits a character when no line end is in reach', () => {
    const cut = capText('é'.repeat(2000), 1001);
    expect(cut.text).not.toContain('\uFFFD');
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(1001);
  });
});

describe('loadHelp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-help-'));
  afterEach(() => rmSync(join(dir, 'help.json.gz'), { force: true }));
  const write = (value: unknown) => {
    writeFileSync(join(dir, 'help.json.gz'), gzipSync(typeof value === 'string' ? value : JSON.stringify(value)));
    return join(dir, 'help.json.gz');
  };
  const page = (text: string) => ({ package: 'p', name: 'f', title: 't', aliases: ['f', 'g'], text, truncated: false });

  it('names the command that writes a missing file', () => {
    expect(() => loadHelp(join(dir, 'absent.json.gz'))).toThrow(HelpMissingError);
    expect(() => loadHelp(join(dir, 'absent.json.gz'))).toThrow(/npm run setup/);
  });

  it('indexes every alias and refuses a page over the cut the file states', () => {
    const index = loadHelp(write({ rVersion: '4.5.0', maxPageBytes: 10, pages: [page('0123456789')] }));
    expect(index.byPackage.get('p')?.get('g')?.name).toBe('f');
    expect(index.packagesOf.get('f')).toEqual(['p']);
    expect(() => loadHelp(write({ rVersion: '4.5.0', maxPageBytes: 10, pages: [page('0123456789a')] }))).toThrow(/exceeds the file's own cut/);
  });

  it('reads at most maxFileBytes and inflates at most maxJsonBytes', () => {
    const file = { rVersion: '4.5.0', maxPageBytes: 10, pages: [page('0123456789')] };
    const path = write(`${JSON.stringify(file)}${' '.repeat(10_000)}`);
    const json = Buffer.byteLength(JSON.stringify(file)) + 10_000;
    expect(loadHelp(path, { maxFileBytes: 1_000_000, maxJsonBytes: json }).packages).toEqual(['p']);
    expect(() => loadHelp(path, { maxFileBytes: 1_000_000, maxJsonBytes: json - 1 })).toThrow(/buffer|length|range/i);
    expect(() => loadHelp(path, { maxFileBytes: 10, maxJsonBytes: json })).toThrow(/at most 10 are read/);
  });
});
