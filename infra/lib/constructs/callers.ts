/**
 * Who calls the API, and for which tenants (config `callers`; docs/deploying.md, "Tenants and
 * identities"). Under `identity` a caller is a session of the tenant role, named and tagged after its
 * tenant: `aws sts assume-role --role-session-name acme --tags Key=jube-tenant,Value=acme`. The
 * stack creates that role unless the config names one; its trust policy lets the account's
 * principals that an identity policy allows assume it only with exactly one session tag,
 * `jube-tenant`, whose value is also the session name (sts:TagSession, aws:RequestTag,
 * sts:RoleSessionName): so the session's principal tag, which IAM binds to the path and the data
 * prefix, and the session name, which the API function checks, are one tenant.
 * Under `single-orchestrator` one named role calls for every tenant.
 *
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html (sts:TagSession, aws:RequestTag),
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#ck_rolesessionname,
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html (${aws:PrincipalTag/...} in Resource).
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ROUTES, TENANT_PATH_PREFIX, type RouteTemplate } from '../../../layers/contract/api.ts';
import { TENANT_TAG_KEY, type TenantBinding } from '../../../layers/contract/isolation.ts';
import type { DeploymentConfig } from '../config.ts';
import { nagArnPrefix, nagRef, nagVariable } from './nag.ts';

/** The caller's tenant as IAM sees it: its `jube-tenant` principal tag, as a policy variable. */
export const TENANT_TAG_VARIABLE = `\${aws:PrincipalTag/${TENANT_TAG_KEY}}`;

export interface RouteResource {
  /** An HTTP verb, or `*`. */
  readonly method: string;
  /** The resource path, from `/`. */
  readonly path: string;
}

/**
 * What a caller of `tenant` may invoke, as execute-api resources (method and path; the stage is any):
 * every tenant-free route (its own verb and path), and everything under the tenant's `/t/<tenant>/`
 * (every verb). `tenant` is the tag variable, or `*`.
 */
export function routeResources(tenant: string): RouteResource[] {
  const templates = Object.keys(ROUTES) as RouteTemplate[];
  const prefix = `/${TENANT_PATH_PREFIX}/`;
  if (!templates.every((t) => !ROUTES[t].tenant || t.startsWith(prefix))) throw new Error(`every tenant route must start with ${prefix}`);
  return [
    ...templates.filter((t) => !ROUTES[t].tenant).map((t) => ({ method: ROUTES[t].method, path: t })),
    { method: '*', path: `${prefix}${tenant}/*` },
  ];
}

/** A route resource in an API's own resource policy (`execute-api:/<stage>/<verb><path>`, any stage). */
export const resourcePolicyResource = (r: RouteResource): string => `execute-api:/*/${r.method}${r.path}`;

export class Callers extends Construct {
  readonly binding: Exclude<TenantBinding, 'unchecked'>;
  /** The tenant role (identity) or the orchestrator role (single-orchestrator); a token when created here. */
  readonly roleArn: string;
  /** The tenant role, when the stack created it (identity without config.callers.tenantRoleArn). */
  readonly tenantRole: iam.Role | undefined;

  constructor(scope: Construct, id: string, props: { readonly callers: DeploymentConfig['callers'] }) {
    super(scope, id);
    const { callers } = props;
    this.binding = callers.kind;
    if (callers.kind === 'single-orchestrator') {
      this.roleArn = callers.orchestratorRoleArn;
      this.tenantRole = undefined;
      return;
    }
    if (callers.tenantRoleArn !== undefined) {
      this.roleArn = callers.tenantRoleArn;
      this.tenantRole = undefined;
      return;
    }
    this.tenantRole = new iam.Role(this, 'TenantRole', {
      description: `jube-r tenant callers: one session per tenant, named and tagged ${TENANT_TAG_KEY}=<tenant>`,
      assumedBy: new iam.SessionTagsPrincipal(
        new iam.PrincipalWithConditions(new iam.AccountRootPrincipal(), {
          // Exactly one session tag, jube-tenant, present and non-empty ...
          'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_TAG_KEY] },
          StringLike: { [`aws:RequestTag/${TENANT_TAG_KEY}`]: '?*' },
          // ... and the session named after it, which is how the API function sees the tenant.
          StringEquals: { 'sts:RoleSessionName': `\${aws:RequestTag/${TENANT_TAG_KEY}}` },
        }),
      ),
    });
    this.roleArn = this.tenantRole.roleArn;
  }

  /**
   * The created tenant role's own permissions on the API's stage: its tenant's routes and the
   * tenant-free ones, nothing else (the API's resource policy says the same, and holds for a role of
   * another account too).
   */
  grantInvoke(api: apigateway.RestApi, stageName: string): void {
    if (!this.tenantRole) return;
    const resources = routeResources(TENANT_TAG_VARIABLE);
    this.tenantRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InvokeOwnTenantRoutes',
        actions: ['execute-api:Invoke'],
        resources: resources.map((r) => api.arnForExecuteApi(r.method, r.path, stageName)),
      }),
    );
    const tenantRoutes = resources.filter((r) => r.method === '*');
    Validations.of(this.tenantRole).acknowledge(
      ...tenantRoutes.map((r) => ({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArnPrefix(Stack.of(this), 'execute-api')}:${nagRef(api)}/${stageName}/*${nagVariable(r.path)}]`,
        reason: `ABAC: every verb under the caller's own /t/<${TENANT_TAG_KEY} tag>/ of this stage, and nothing of another tenant's.`,
      })),
    );
  }

  /** The created tenant role's upload permission: its own tenant prefix of the data bucket. */
  grantOwnPrefixUploads(bucket: s3.IBucket): void {
    if (!this.tenantRole) return;
    this.tenantRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PutOwnTenantTables',
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(`${TENANT_TAG_VARIABLE}/*`)],
      }),
    );
    Validations.of(this.tenantRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagRef(bucket, 'Arn')}/${nagVariable(TENANT_TAG_VARIABLE)}/*]`,
      reason: `ABAC: the objects under the caller's own <${TENANT_TAG_KEY} tag>/ prefix, and no other tenant's.`,
    });
  }
}
