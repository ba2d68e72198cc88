/**
 * The sample events under events/ (for `sam local invoke`) parse with the handlers' own schemas:
 * API Gateway proxy events route, come from a session of the tenant role named after tenant `acme`
 * (as IAM authorization puts the caller in the request context), a tenant route's path names that
 * tenant, and a body the route accepts; the execute event is an ExecuteEvent. docs/local-sam.md
 * only names events that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ExecuteEventSchema } from '../../../layers/contract/execute.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { lowerCaseHeaders } from '../../../functions/api/http/ingress.ts';
import { tenantOfCall } from '../../../functions/api/http/caller.ts';
import { parseRoleArn } from '../../../layers/contract/iam-arns.ts';
import { executeRequestSchema, ROUTES, ValidateRequestSchema } from '../../../layers/contract/api.ts';
import { matchRoute } from '../../../functions/api/routes/table.ts';
import { REPOSITORY_ROOT } from '../../../infra/lib/app.ts';

/** The parts of an API Gateway REST proxy event the validate handler reads. */
const ApiGatewayProxyEventSchema = z.object({
  /** The API Gateway resource (the route template, `/t/{tenant}/execute`). */
  resource: z.string(),
  path: z.string().startsWith('/'),
  httpMethod: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
  headers: z.record(z.string(), z.string()),
  multiValueHeaders: z.record(z.string(), z.array(z.string())),
  queryStringParameters: z.record(z.string(), z.string()).nullable(),
  pathParameters: z.record(z.string(), z.string()).nullable(),
  body: z.string().nullable(),
  isBase64Encoded: z.boolean(),
  requestContext: z.object({
    requestId: z.string().min(1),
    stage: z.string().min(1),
    identity: z.object({ sourceIp: z.string(), userArn: z.string(), vpceId: z.string().startsWith('vpce-').optional() }),
  }),
});

const eventsDir = join(REPOSITORY_ROOT, 'events');
/** The tenant role the sample events' caller (`.../assumed-role/jube-r-tenants-dev/acme`) is a session of. */
const SAMPLE_TENANT_ROLE = 'arn:aws:iam::123456789012:role/jube-r-tenants-dev';
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const apiEvents = readdirSync(join(eventsDir, 'api')).filter((f) => f.endsWith('.json')).sort();

describe('API Gateway sample events', () => {
  it('cover every route of the handler', () => {
    const routes = apiEvents.map((file) => {
      const event = ApiGatewayProxyEventSchema.parse(readJson(join(eventsDir, 'api', file)));
      return `${event.httpMethod} ${event.resource}`;
    });
    expect(new Set(routes)).toEqual(new Set(Object.entries(ROUTES).map(([path, r]) => `${r.method} ${path}`)));
  });

  it.each(apiEvents)("%s is a proxy event the handler routes, from tenant acme's identity, with an acceptable body", (file) => {
    // Act
    const event = ApiGatewayProxyEventSchema.parse(readJson(join(eventsDir, 'api', file)));
    const { route, tenant } = matchRoute(event.httpMethod, event.path);
    const identity = { mode: 'identity', role: parseRoleArn(SAMPLE_TENANT_ROLE) } as const;

    // Assess: what the identity binding would let through, as deployed.
    if (route.tenant) expect(tenantOfCall(identity, tenant, event.requestContext.identity)).toBe('acme');
    else expect(() => tenantOfCall(identity, 'acme', event.requestContext.identity)).not.toThrow();
    expect(lowerCaseHeaders(event.headers)).not.toHaveProperty('x-jube-tenant');
    if (!route.body) {
      expect(event.body).toBeNull();
      return;
    }
    expect(lowerCaseHeaders(event.headers)['content-type']).toBe('application/json');
    const body: unknown = JSON.parse(event.body ?? 'null');
    const schema = route.name === 'validate' ? ValidateRequestSchema : executeRequestSchema(loadRules());
    expect(schema.safeParse(body).error?.issues ?? []).toEqual([]);
  });
});

describe('execute function sample event', () => {
  it('is an ExecuteEvent', () => {
    const parsed = ExecuteEventSchema.safeParse(readJson(join(eventsDir, 'execute', 'execute.json')));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it('is what the validate function would send for events/api/execute.json', () => {
    const api = ApiGatewayProxyEventSchema.parse(readJson(join(eventsDir, 'api', 'execute.json')));
    const request = JSON.parse(api.body ?? '{}') as Record<string, unknown>;
    const execute = ExecuteEventSchema.parse(readJson(join(eventsDir, 'execute', 'execute.json')));
    expect({ script: execute.script, timeoutSeconds: execute.timeoutSeconds, variables: execute.variables }).toEqual(request);
    expect(execute.requestId).toBe(api.requestContext.requestId);
  });
});

describe('docs/local-sam.md', () => {
  it('names only sample events that exist', () => {
    const doc = readFileSync(join(REPOSITORY_ROOT, 'docs/local-sam.md'), 'utf8');
    const named = [...doc.matchAll(/events\/[\w/.-]+\.json/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(0);
    for (const path of named) expect(existsSync(join(REPOSITORY_ROOT, path)), path).toBe(true);
  });
});
