/**
 * GET /help through the API handler (the event API Gateway sends, the handler's whole middleware
 * chain) beside GET /packages on the same handler and beside what it replaces: one Rscript per
 * lookup rendering the page with tools::Rd2txt. p50/p99 per call once the pages are loaded, the
 * first (loading) lookup on its own, and a miss (which ranks every installed topic). Target:
 * `/help?topic=mutate&package=dplyr` p50 < 50 ms. Nothing here passes or fails.
 */
import { execFileSync } from 'node:child_process';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { createApi } from '../../functions/api/create-api.ts';
import { median } from './median.ts';

const ITERATIONS = 200;
const R_RUNS = 3;

const event = (path: string, query: Record<string, string> | null): APIGatewayProxyEvent =>
  ({
    resource: '/{proxy+}', path, httpMethod: 'GET', headers: {}, multiValueHeaders: {}, queryStringParameters: query,
    multiValueQueryStringParameters: null, pathParameters: null, stageVariables: null, body: null, isBase64Encoded: false,
    requestContext: { requestId: 'bench', stage: 'bench' } as APIGatewayProxyEvent['requestContext'],
  }) as APIGatewayProxyEvent;

const context = { getRemainingTimeInMillis: () => 30_000, awsRequestId: 'bench', functionName: 'bench' } as unknown as Context;

const p = (samples: readonly number[], q: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

export async function run(): Promise<void> {
  const env = { ...process.env, JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9' };
  const api = createApi({ env, config: readServiceConfig(env), logger: new Logger({ serviceName: 'bench', logLevel: 'SILENT' }) });
  const time = async (e: APIGatewayProxyEvent, expected: number) => {
    const t0 = performance.now();
    const result = await api.handler(e, context);
    const ms = performance.now() - t0;
    if (result.statusCode !== expected) throw new Error(`${e.path} answered ${result.statusCode}: ${result.body.slice(0, 200)}`);
    return ms;
  };
  const mutate = event('/help', { topic: 'mutate', package: 'dplyr' });
  const first = await time(mutate, 200);
  const loop = async (e: APIGatewayProxyEvent, status: number) => {
    const samples: number[] = [];
    for (let i = 0; i < ITERATIONS; i += 1) samples.push(await time(e, status));
    return samples;
  };
  const help = await loop(mutate, 200);
  const miss = await loop(event('/help', { topic: 'mutat' }), 404);
  const packages = await loop(event('/packages', null), 200);

  const rSamples: number[] = [];
  for (let i = 0; i < R_RUNS; i += 1) {
    const t0 = performance.now();
    execFileSync('Rscript', ['--vanilla', '-e', 'invisible(capture.output(tools::Rd2txt(tools::Rd_db("dplyr")[["mutate.Rd"]])))']);
    rSamples.push(performance.now() - t0);
  }
  const rMedian = median(rSamples);

  console.log(`first lookup (reads and indexes the pages once per process): ${fmt(first)}`);
  console.log(`GET /help?topic=mutate&package=dplyr   p50 ${fmt(p(help, 0.5))}  p99 ${fmt(p(help, 0.99))}  (n=${ITERATIONS}; target p50 < 50 ms)`);
  console.log(`GET /help?topic=mutat (404, nearest)   p50 ${fmt(p(miss, 0.5))}  p99 ${fmt(p(miss, 0.99))}`);
  console.log(`GET /packages (same handler)           p50 ${fmt(p(packages, 0.5))}  p99 ${fmt(p(packages, 0.99))}`);
  console.log(`one Rscript rendering mutate's Rd      p50 ${fmt(rMedian)}  (n=${R_RUNS})`);
  console.log(`ratios: /help / /packages ${(p(help, 0.5) / p(packages, 0.5)).toFixed(2)}x; Rscript / /help ${(rMedian / p(help, 0.5)).toFixed(0)}x`);
}
