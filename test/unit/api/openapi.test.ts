/**
 * docs/openapi.yaml must say what the code does: every request and response schema in it is
 * compared, node by node, with the JSON Schema zod generates from the schemas the handler uses
 * (types, properties, required fields, additionalProperties, enums, constants, item limits).
 * Descriptions, examples and string-format details are the document's own business.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { z } from 'zod';
import { loadRules } from '../../../layers/rules/rules.ts';
import {
  ERROR_CODES,
  ERROR_STATUS,
  ErrorBodySchema,
  ExecuteResponseSchema,
  HealthResponseSchema,
  HealthSummarySchema,
  HelpResponseSchema,
  PackagesResponseSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
  executeRequestSchema,
  ROUTES,
} from '../../../layers/contract/api.ts';

type Json = Record<string, unknown>;
const DOC = YAML.parse(readFileSync(path.resolve(import.meta.dirname, '../../../docs/openapi.yaml'), 'utf8')) as Json;

function deref(node: Json): Json {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  const target = ref.replace(/^#\//, '').split('/').reduce<unknown>((at, key) => (at as Json)[key], DOC);
  if (!target) throw new Error(`unresolved ${ref}`);
  return deref(target as Json);
}

/** The structural core of a JSON Schema node, with every $ref resolved. */
function shape(raw: unknown): unknown {
  if (raw === true || raw === false) return raw;
  const node = deref(raw as Json);
  const out: Json = {};
  if (node['type'] !== undefined) out['type'] = [node['type']].flat().sort();
  if (node['enum'] !== undefined) out['enum'] = [...(node['enum'] as unknown[])].map(String).sort();
  if (node['const'] !== undefined) out['const'] = node['const'];
  if (node['maxItems'] !== undefined) out['maxItems'] = node['maxItems'];
  if (node['anyOf'] !== undefined) out['anyOf'] = (node['anyOf'] as unknown[]).map(shape);
  if (node['oneOf'] !== undefined) out['oneOf'] = (node['oneOf'] as unknown[]).map(shape);
  if (node['items'] !== undefined) out['items'] = shape(node['items']);
  if (node['properties'] !== undefined) {
    out['properties'] = Object.fromEntries(Object.entries(node['properties'] as Json).map(([k, v]) => [k, shape(v)]));
  }
  if (node['required'] !== undefined) out['required'] = [...(node['required'] as string[])].sort();
  if (node['additionalProperties'] !== undefined) out['additionalProperties'] = shape(node['additionalProperties']);
  return out;
}

const fromZod = (schema: z.ZodType, io: 'input' | 'output') => shape(z.toJSONSchema(schema, { io, unrepresentable: 'any' }));
const component = (name: string) => shape({ $ref: `#/components/schemas/${name}` });

const operation = (route: string, method: string) => ((DOC['paths'] as Json)[route] as Json)[method.toLowerCase()] as Json;
const jsonSchemaOf = (holder: Json) => ((holder['content'] as Json)['application/json'] as Json)['schema'];
const responseSchema = (route: string, method: string, status: string) =>
  shape(jsonSchemaOf(deref((operation(route, method)['responses'] as Json)[status] as Json)));

describe('docs/openapi.yaml against the zod schemas', () => {
  it('is an OpenAPI 3.1 document with exactly the routes the handler serves', () => {
    expect(DOC['openapi']).toMatch(/^3\.1\./);
    const documented = Object.entries(DOC['paths'] as Json).flatMap(([p, ops]) => Object.keys(ops as Json).filter((k) => k !== 'parameters').map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(Object.entries(ROUTES).map(([p, r]) => `${r.method} ${p}`).sort());
  });

  it.each([
    ['/validate', ValidateRequestSchema],
    ['/t/{tenant}/execute', executeRequestSchema(loadRules())],
  ])('request body of %s', (route, schema) => {
    const body = operation(route, 'POST')['requestBody'] as Json;
    expect(shape(jsonSchemaOf(body))).toEqual(fromZod(schema, 'input'));
  });

  it.each([
    ['/health', 'GET', z.union([HealthSummarySchema, HealthResponseSchema])],
    ['/packages', 'GET', PackagesResponseSchema],
    ['/help', 'GET', HelpResponseSchema],
    ['/validate', 'POST', ValidateResponseSchema],
    ['/t/{tenant}/execute', 'POST', ExecuteResponseSchema],
  ])('200 response of %s', (route, method, schema) => {
    expect(responseSchema(route, method, '200')).toEqual(fromZod(schema, 'output'));
  });

  it('documents the one error body with every error code', () => {
    expect(component('Error')).toEqual(fromZod(ErrorBodySchema, 'output'));
    for (const route of Object.keys(ROUTES)) {
      const { method } = ROUTES[route as keyof typeof ROUTES];
      for (const [status, response] of Object.entries(operation(route, method)['responses'] as Json)) {
        if (status !== '200') expect(shape(jsonSchemaOf(deref(response as Json)))).toEqual(component('Error'));
      }
    }
  });

  it('documents each status the error codes of /t/{tenant}/execute can produce', () => {
    const statuses = Object.keys(operation('/t/{tenant}/execute', 'POST')['responses'] as Json);
    const expected = new Set(ERROR_CODES.filter((c) => c !== 'NOT_FOUND').map((c) => String(ERROR_STATUS[c])));
    for (const status of expected) expect(statuses).toContain(status);
  });
});
