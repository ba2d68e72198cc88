/**
 * The tools' schemas are the HTTP contract's: listed through a real MCP client, r_execute's input is
 * the /execute body's schema and its output the execute response's, so a field the contract gains
 * reaches the tools unchanged.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  executeRequestSchema,
  ExecuteResponseSchema,
  PackagesResponseSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
} from '../../../../layers/contract/api.ts';
import { loadRules } from '../../../../layers/rules/rules.ts';
import type { JubeRClient } from '../../../../functions/tools/client/jube-r-client.ts';
import { createJubeRMcpServer, TOOL_NAMES } from '../../../../functions/tools/mcp/server.ts';
import { McpExecuteResultSchema } from '../../../../functions/tools/mcp/content.ts';

/** listTools needs no API: every route refuses. */
const unreachable: JubeRClient = {
  health: () => Promise.reject(new Error('unreachable')),
  packages: () => Promise.reject(new Error('unreachable')),
  validate: () => Promise.reject(new Error('unreachable')),
  execute: () => Promise.reject(new Error('unreachable')),
  endSession: () => Promise.reject(new Error('unreachable')),
  help: () => Promise.reject(new Error('unreachable')),
};

let client: Client;
let tools: Map<string, Tool>;

beforeAll(async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createJubeRMcpServer({ api: unreachable, session: 's-1', health: undefined }).connect(serverSide);
  client = new Client({ name: 'schemas-test', version: '0' });
  await client.connect(clientSide);
  tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
});
afterAll(async () => {
  await client.close();
});

const json = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { target: 'draft-7', io });

describe('the tool schemas', () => {
  it('lists the five tools', () => {
    expect([...tools.keys()].sort()).toEqual([...TOOL_NAMES].sort());
  });

  it('r_execute takes every field of the /execute body, and only those', () => {
    const schema = executeRequestSchema(loadRules());
    const input = tools.get('r_execute')!.inputSchema;
    expect(Object.keys(input.properties ?? {}).sort()).toEqual(Object.keys(schema.shape).sort());
    expect(input.required).toEqual(['script']);
    expect(input).toEqual(json(schema, 'input'));
  });

  it('each tool\'s output schema is the contract\'s response schema (r_execute\'s with bytes referenced, not repeated)', () => {
    expect(tools.get('r_execute')!.outputSchema).toEqual(json(McpExecuteResultSchema, 'output'));
    expect(Object.keys(tools.get('r_execute')!.outputSchema!.properties ?? {}).sort()).toEqual(Object.keys(ExecuteResponseSchema.shape).sort());
    // r_health declares none (it would be half of tools/list); its structuredContent is the /health answer.
    expect(tools.get('r_health')!.outputSchema).toBeUndefined();
    expect(tools.get('r_packages')!.outputSchema).toEqual(json(PackagesResponseSchema, 'output'));
    expect(tools.get('r_validate')!.outputSchema).toEqual(json(ValidateResponseSchema, 'output'));
    expect(tools.get('r_validate')!.inputSchema).toEqual(json(ValidateRequestSchema, 'input'));
  });

  it('without an answer from /health, the descriptions send the model to r_health for the limits', () => {
    expect(tools.get('r_execute')!.description).toContain('call r_health for them');
    expect(tools.get('r_execute')!.description).toMatch(/^Runs an R script/);
  });

  it('an API that does not answer is a tool error, not a protocol error', async () => {
    const result = await client.callTool({ name: 'r_packages', arguments: {} });
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'the R service did not answer: unreachable' }] });
  });
});
