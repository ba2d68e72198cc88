import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../functions/tools/cli/script-arguments.ts';
import { DEFAULT_HTTP_PORT, LOCAL_TENANT, parseMcpArguments } from '../../../../functions/tools/mcp/arguments.ts';

describe('parseMcpArguments', () => {
  it('serves stdio against the local stack with --local', () => {
    expect(parseMcpArguments(['--local'], {})).toMatchObject({ transport: 'stdio', target: { kind: 'local' }, session: undefined });
  });

  it("runs r_execute as the tenant named (its path /t/T/execute); the local stack's own tenant by default, none for a URL", () => {
    expect(parseMcpArguments(['--local'], {}).tenant).toBe(LOCAL_TENANT);
    expect(parseMcpArguments(['--local', '--tenant', 'acme'], {}).tenant).toBe('acme');
    expect(parseMcpArguments(['--url', 'http://127.0.0.1:8080', '--no-sign', '--tenant', 'acme'], {}).tenant).toBe('acme');
    expect(() => parseMcpArguments(['--url', 'http://127.0.0.1:8080', '--no-sign'], {})).toThrow(/--url needs --tenant/);
  });

  it('serves Streamable HTTP on loopback, on the default port unless told', () => {
    expect(parseMcpArguments(['--http', '--local'], {})).toMatchObject({ transport: 'http', host: '127.0.0.1', port: DEFAULT_HTTP_PORT });
    expect(parseMcpArguments(['--http', '--port', '0', '--local'], {})).toMatchObject({ port: 0 });
  });

  it('takes the URL from --url or JUBE_R_API_URL, signed unless --no-sign', () => {
    expect(parseMcpArguments(['--url', 'http://127.0.0.1:8080', '--no-sign', '--tenant', 'acme'], {}).target).toEqual({ kind: 'url', url: 'http://127.0.0.1:8080', sign: false, region: undefined });
    expect(parseMcpArguments(['--tenant', 'acme'], { JUBE_R_API_URL: 'https://a.execute-api.eu-west-1.amazonaws.com/prod', JUBE_R_MIN_HTTP_TIMEOUT_MS: '142000' }).target).toMatchObject({ kind: 'url', sign: true });
  });

  it('needs a deployed API\'s minimum HTTP timeout, and waits longer than it', () => {
    const deployed = ['--url', 'https://a.execute-api.eu-west-1.amazonaws.com/prod', '--tenant', 'acme'];
    expect(() => parseMcpArguments(deployed, {})).toThrow(/OrchestratorMinimumHttpTimeoutMs.*--min-http-timeout/);
    expect(parseMcpArguments([...deployed, '--min-http-timeout', '142000'], {}).minimumHttpTimeoutMs).toBe(142_000);
    expect(() => parseMcpArguments([...deployed, '--min-http-timeout', '142000', '--http-timeout', '30000'], {})).toThrow(/must exceed/);
    expect(parseMcpArguments(['--url', 'http://127.0.0.1:8080', '--no-sign', '--tenant', 'acme'], {}).minimumHttpTimeoutMs).toBeUndefined();
  });

  it.each([
    [[], /no target/],
    [['--local', '--url', 'http://x'], /not both/],
    [['--url', 'not a url'], /not a URL/],
    [['--local', '--port', '1'], /need --http/],
    [['--local', '--http', '--port', '70000'], /--port needs a whole number/],
    [['--local', '--bogus'], /unknown option --bogus/],
    [['--local', '--http', '--session', 'abc'], /--session is for stdio/],
    [['--local', '--session', 'Not_Valid'], /--session: header X-Jube-Session must be/],
  ])('refuses %j', (args, message) => {
    expect(() => parseMcpArguments(args, {})).toThrow(UsageError);
    expect(() => parseMcpArguments(args, {})).toThrow(message);
  });

  it('accepts a session within the header\'s rule', () => {
    expect(parseMcpArguments(['--local', '--session', 'chat-42'], {}).session).toBe('chat-42');
  });
});
