/**
 * Whose tenant a call may name: the path's `/t/{tenant}/` checked against the caller's IAM identity
 * as API Gateway puts it in the request context (`requestContext.identity.userArn`, set for IAM
 * authorization). API Gateway's authorizer sees the resource path, never a header, so the stack's
 * policies bind the path to the caller's `jube-tenant` principal tag (docs/deploying.md, "Tenants and
 * identities"); this check holds the same line again inside the function, so a policy widened by
 * mistake still cannot let one tenant's identity run code or bind data as another.
 *
 * - `identity`: the caller must be a session of the tenant role whose session name is the path's
 *   tenant (the role's trust policy requires the session name to equal the `jube-tenant` session tag);
 *   anything else is 403 (CALLER_NOT_ALLOWED, TENANT_MISMATCH).
 * - `single-orchestrator`: the caller must be a session of the one orchestrator role; it names any tenant.
 * - `unchecked`: a local API without IAM in front (the local stack, sam local); never in Lambda
 *   proper, where the API refuses to start without a binding.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { ConfigError } from '../../../layers/config/service-config.ts';
import { isSessionOf, parseRoleArn, parseRoleSessionArn, type RoleArn } from '../../../layers/contract/iam-arns.ts';
import type { TenantBinding } from '../../../layers/contract/isolation.ts';
import { isValidTenant, MAX_TENANT_LENGTH } from '../data-pointers/pointer.ts';
import { CallerNotAllowedError, InvalidTenantError, TenantMismatchError } from './errors.ts';

export interface CallerBinding {
  readonly mode: TenantBinding;
  /** The tenant role (`identity`) or the orchestrator role (`single-orchestrator`). */
  readonly role: RoleArn | undefined;
}

/**
 * The binding this API enforces. Unset (JUBE_R_TENANT_BINDING) is only allowed where no IAM sits in
 * front: outside Lambda, or in Lambda with a local Lambda endpoint (sam local); a function in AWS
 * without it refuses to start rather than take every path's tenant at its word.
 */
export function callerBinding(config: Pick<ServiceConfig, 'tenantBinding' | 'lambdaEndpoint'>, env: NodeJS.ProcessEnv): CallerBinding {
  const { mode, roleArn } = config.tenantBinding;
  if (mode === undefined) {
    const inAws = env['AWS_LAMBDA_FUNCTION_NAME'] !== undefined && config.lambdaEndpoint === undefined;
    if (inAws) {
      throw new ConfigError('invalid jube-r configuration: JUBE_R_TENANT_BINDING is unset in Lambda; the stack sets identity or single-orchestrator');
    }
    return { mode: 'unchecked', role: undefined };
  }
  if (mode === 'unchecked') return { mode, role: undefined };
  const role = roleArn === undefined ? undefined : parseRoleArn(roleArn);
  if (role === undefined) throw new ConfigError(`invalid jube-r configuration: JUBE_R_TENANT_BINDING=${mode} needs JUBE_R_CALLER_ROLE_ARN`);
  return { mode, role };
}

type Identity = Pick<APIGatewayProxyEvent['requestContext']['identity'], 'userArn'> | null | undefined;

/**
 * The tenant this call acts for: the path's, once it is a tenant name and the caller may name it.
 * Throws INVALID_TENANT (400), CALLER_NOT_ALLOWED or TENANT_MISMATCH (403).
 */
export function tenantOfCall(binding: CallerBinding, pathTenant: string | undefined, identity: Identity): string {
  if (pathTenant === undefined || !isValidTenant(pathTenant)) {
    throw new InvalidTenantError(
      `the path's tenant (/t/{tenant}/...) must be 1-${MAX_TENANT_LENGTH} characters of lower-case letters, digits and "-", starting with a letter or digit`,
    );
  }
  if (binding.mode === 'unchecked') return pathTenant;
  const userArn = identity?.userArn ?? undefined;
  const session = userArn ? parseRoleSessionArn(userArn) : undefined;
  if (session === undefined || !isSessionOf(session, binding.role!)) {
    const who = binding.mode === 'identity' ? "a session of this deployment's tenant role" : "a session of this deployment's orchestrator role";
    throw new CallerNotAllowedError(`this deployment admits only ${who}; the caller is ${userArn ?? 'not an IAM role session'}`);
  }
  if (binding.mode === 'identity' && session.session !== pathTenant) {
    throw new TenantMismatchError(
      `the path names tenant "${pathTenant}", but this caller's identity is bound to tenant "${session.session}" (its role session); call /t/${session.session}/...`,
    );
  }
  return pathTenant;
}
