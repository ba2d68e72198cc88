/**
 * One MCP server for one jube-r session: the tools r_health, r_packages, r_validate, r_execute,
 * r_help and r_session_end over a JubeRClient (a deployed API through SigV4, or the local stack). Input and output
 * schemas are the HTTP contract's zod schemas themselves (layers/contract/api.ts), so a field the
 * contract gains appears in the tools without a change here. Every /execute call carries this
 * server's session as X-Jube-Session, so the calls of one MCP session share a workspace
 * (docs/sessions.md) and r_session_end empties it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import packageJson from '../../../package.json' with { type: 'json' };
import {
  executeRequestSchema,
  PackagesResponseSchema,
  SessionEndResponseSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
  type HealthResponse,
} from '../../../layers/contract/api.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { HelpAnswerSchema, JubeRApiError, JubeRTimeoutError, type JubeRClient } from '../client/jube-r-client.ts';
import {
  apiErrorResult,
  executeResult,
  failureResult,
  healthResult,
  helpNotFoundResult,
  helpResult,
  packagesResult,
  McpExecuteResultSchema,
  sessionEndResult,
  validationResult,
} from './content.ts';
import { toolDescriptions } from './descriptions.ts';

export interface JubeRMcpServerOptions {
  readonly api: JubeRClient;
  /** X-Jube-Session for every /execute of this server (already checked against the header's rule). */
  readonly session: string;
  /** GET /health as read at startup; undefined if the API did not answer then. */
  readonly health: HealthResponse | undefined;
}

export const TOOL_NAMES = ['r_health', 'r_packages', 'r_validate', 'r_execute', 'r_help', 'r_session_end'] as const;

/** r_help's arguments: what GET /help takes as its query. */
export const HelpInputSchema = z.strictObject({
  topic: z.string().min(1).max(256).describe('the help topic, usually a function name, e.g. "mutate"'),
  package: z.string().min(1).max(256).optional().describe('the package the topic is in, e.g. "dplyr"'),
});

const INSTRUCTIONS =
  'jube-r runs R scripts in a sandbox. Write a script, check it with r_validate, run it with r_execute; the objects one r_execute makes are there at the next, until r_session_end. r_packages lists what library() can load, r_help shows an installed function\'s documentation, r_health the limits and rules.';

/** The r_execute input: the /execute body's schema, with this deployment's binding limits. */
export function executeInputSchema(health: HealthResponse | undefined) {
  return executeRequestSchema(health?.rules ?? loadRules());
}

/** An answer of the API that is not a 200 becomes a tool error the model can act on. */
async function answered(call: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof JubeRApiError) return apiErrorResult(error.status, error.message, error.body);
    if (error instanceof JubeRTimeoutError) return failureResult(`${error.message}: the script may have run; check before running it again`);
    return failureResult(`the R service did not answer: ${(error as Error).message}`);
  }
}

/** A 404 of /help names the nearest topics; one without `suggestions` is not about the topic (no such route). */
function suggestionsOf(json: unknown): unknown[] | undefined {
  const suggestions = (json as { suggestions?: unknown } | null | undefined)?.suggestions;
  return Array.isArray(suggestions) ? suggestions : undefined;
}

export function createJubeRMcpServer(options: JubeRMcpServerOptions): McpServer {
  const { api, session } = options;
  const server = new McpServer({ name: 'jube-r', version: packageJson.version }, { instructions: INSTRUCTIONS });
  const described = toolDescriptions(options.health);
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'r_health',
    // No outputSchema: the /health answer's schema (the rules' and capabilities' shapes) would be
    // half of tools/list's bytes; structuredContent is still the whole /health?detail=full answer.
    { title: 'R service limits and rules', description: described.r_health, annotations: readOnly },
    () =>
      answered(async () => {
        const health = await api.health();
        // The limits the descriptions could not name at startup are known now.
        if (options.health === undefined) execute.update({ description: toolDescriptions(health).r_execute });
        return healthResult(health);
      }),
  );
  server.registerTool(
    'r_packages',
    { title: 'Installed R packages', description: described.r_packages, outputSchema: PackagesResponseSchema, annotations: readOnly },
    () => answered(async () => packagesResult(await api.packages())),
  );
  server.registerTool(
    'r_validate',
    {
      title: 'Check an R script',
      description: described.r_validate,
      inputSchema: ValidateRequestSchema,
      outputSchema: ValidateResponseSchema,
      annotations: readOnly,
    },
    (request) => answered(async () => validationResult(await api.validate(request))),
  );
  const execute = server.registerTool(
    'r_execute',
    {
      title: 'Run an R script',
      description: described.r_execute,
      inputSchema: executeInputSchema(options.health),
      outputSchema: McpExecuteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (request) => answered(async () => executeResult(await api.execute(request, { session }))),
  );
  server.registerTool(
    'r_help',
    { title: 'R documentation', description: described.r_help, inputSchema: HelpInputSchema, outputSchema: HelpAnswerSchema, annotations: readOnly },
    (query) =>
      answered(async () => {
        try {
          return helpResult(await api.help(query));
        } catch (error) {
          const suggestions = error instanceof JubeRApiError && error.status === 404 ? suggestionsOf(error.json) : undefined;
          if (suggestions !== undefined) return helpNotFoundResult(query.topic, (error as JubeRApiError).message, suggestions);
          throw error;
        }
      }),
  );
  server.registerTool(
    'r_session_end',
    {
      title: 'Empty the R workspace',
      description: described.r_session_end,
      outputSchema: SessionEndResponseSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    () => answered(async () => sessionEndResult(await api.endSession({ session }))),
  );
  return server;
}
