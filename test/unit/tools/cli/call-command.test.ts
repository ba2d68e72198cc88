import { describe, expect, it } from 'vitest';
import { parseCallArguments } from '../../../../functions/tools/cli/call-command.ts';
import { UsageError } from '../../../../functions/tools/cli/script-arguments.ts';

describe('jube-r call arguments', () => {
  it('takes the tenant and the session apart from the script arguments', () => {
    const call = parseCallArguments(['execute', 's.R', '--tenant', 'acme', '--session', 'chat-7', '--var', 'n=1'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' });
    expect(call).toMatchObject({ route: 'execute', tenant: 'acme', session: 'chat-7', rest: ['s.R', '--var', 'n=1'] });
  });

  it('leaves the session out when none is given', () => {
    expect(parseCallArguments(['health'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' }).session).toBeUndefined();
  });

  it('refuses --session without a value', () => {
    expect(() => parseCallArguments(['execute', 's.R', '--session'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' })).toThrow(UsageError);
  });
});
