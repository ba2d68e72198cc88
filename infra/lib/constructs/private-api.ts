/**
 * The private REST API: reachable only through the stack's execute-api interface endpoint or the
 * callers' own endpoints the config names (resource policy denies any other aws:SourceVpce), IAM
 * (SigV4) authorization on every method, and only the callers' role allowed to invoke: under
 * `identity` each tenant session only its own `/t/<tenant>/` routes (its `jube-tenant` principal tag
 * in the resource, https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-resource-policies-aws-condition-keys.html),
 * under `single-orchestrator` the one role everywhere. All routes (the contract's, layers/contract/api.ts)
 * proxy to the validate function with the integration timeout taken from the timeout chain. The
 * stage is traced with X-Ray and writes JSON access logs that name the caller's ARN, the endpoint it
 * came through and the integration's latency; its execution log group is created here, so it expires.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES, TENANT_PARAMETER, type RouteTemplate } from '../../../layers/contract/api.ts';
import { TENANT_TAG_KEY } from '../../../layers/contract/isolation.ts';
import { resourcePolicyResource, routeResources, TENANT_TAG_VARIABLE, type Callers } from './callers.ts';

export interface PrivateApiProps {
  /** The API's name: per environment, since API Gateway's metrics (and so the alarms) key on ApiName. */
  readonly apiName: string;
  readonly stageName: string;
  /** The stack's own execute-api endpoint; undefined where only callers' endpoints admit (a shared VPC). */
  readonly endpoint: ec2.IInterfaceVpcEndpoint | undefined;
  /** Callers' own execute-api endpoints (other VPCs or accounts), admitted next to `endpoint`. */
  readonly additionalVpcEndpointIds: readonly string[];
  /** Set API Gateway's account-wide CloudWatch role (AWS::ApiGateway::Account) from this stack. */
  readonly manageAccountCloudWatchRole: boolean;
  readonly callers: Pick<Callers, 'binding' | 'roleArn'>;
  readonly handler: lambda.IFunction;
  readonly integrationTimeoutMs: number;
  readonly throttlingRateLimit: number;
  readonly throttlingBurstLimit: number;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class PrivateApi extends Construct {
  readonly api: apigateway.RestApi;
  readonly accessLogGroup: logs.LogGroup;
  /** API Gateway's execution log (`API-Gateway-Execution-Logs_<api>/<stage>`), made here so it expires. */
  readonly executionLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PrivateApiProps) {
    super(scope, id);
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });

    const callerEndpoints = props.additionalVpcEndpointIds.map((vpcEndpointId, i) =>
      ec2.InterfaceVpcEndpoint.fromInterfaceVpcEndpointAttributes(this, `CallerEndpoint${i}`, { vpcEndpointId, port: 443 }),
    );
    const endpoints = [...(props.endpoint ? [props.endpoint] : []), ...callerEndpoints];
    if (endpoints.length === 0) throw new Error('a private API needs at least one execute-api endpoint to be reached through');
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: props.apiName,
      description: 'jube-r: sandboxed R analytics (private; SigV4 from the callers\' role only, each tenant on its own path)',
      endpointConfiguration: { types: [apigateway.EndpointType.PRIVATE], vpcEndpoints: endpoints },
      policy: resourcePolicy(props.callers, endpoints.map((e) => e.vpcEndpointId)),
      defaultMethodOptions: { authorizationType: apigateway.AuthorizationType.IAM },
      // Access logging needs the account-level CloudWatch role. It is one setting per account and
      // region (the last stack to deploy it wins), so the stack manages it only when told to.
      cloudWatchRole: props.manageAccountCloudWatchRole,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: apigateway.AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        tracingEnabled: true,
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
        // Errors only, and never request/response bodies: they hold scripts and tenant data.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
      },
    });

    // RestApi always adds an `Endpoint` output under a hashed logical id; the stack outputs the URLs
    // callers can reach under names the docs give (ApiVpcEndpointUrl, ApiUrl).
    this.api.node.tryRemoveChild('Endpoint');

    // API Gateway writes its execution log (ERROR level here) to a group of this name, creating it
    // without expiry if it is missing; made first, with the stack's retention, it is the one written to.
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html
    this.executionLogGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogGroup);

    // Validation is on for parameters and bodies, but no method declares a request model: the
    // handler validates bodies with strict zod schemas and answers with the contract's error codes
    // (413/415/400 UNKNOWN_FIELD...), which API Gateway's own validation responses would replace.
    const validator = this.api.addRequestValidator('RequestValidator', {
      validateRequestParameters: true,
      validateRequestBody: true,
    });

    const integration = new apigateway.LambdaIntegration(props.handler, {
      proxy: true,
      timeout: Duration.millis(props.integrationTimeoutMs),
      allowTestInvoke: false,
    });
    for (const template of Object.keys(ROUTES) as RouteTemplate[]) {
      const route = ROUTES[template];
      // `t/{tenant}/execute`: API Gateway's path parameter has the contract's name.
      const resource = this.api.root.resourceForPath(template.slice(1));
      resource.addMethod(route.method, integration, {
        authorizationType: apigateway.AuthorizationType.IAM,
        requestValidator: validator,
        ...(route.tenant ? { requestParameters: { [`method.request.path.${TENANT_PARAMETER}`]: true } } : {}),
      });
    }

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-APIG3',
        reason: 'Private API: reachable only through the VPC interface endpoint, IAM-authorized, one caller principal; stage throttling bounds load.',
      },
      { id: 'AwsSolutions::AwsSolutions-COG4', reason: 'Callers are AWS principals signing with SigV4 (IAM authorization), not Cognito users.' },
      ...(props.manageAccountCloudWatchRole
        ? [
            {
              id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
              reason: "API Gateway's account-level CloudWatch role needs AmazonAPIGatewayPushToCloudWatchLogs to write access logs; it is the service's documented policy.",
            },
          ]
        : []),
    );
  }
}

/**
 * One JSON object per request: API Gateway's standard fields, plus who called (the caller's ARN),
 * through which endpoint, how long the validate function took and why an integration failed.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: apigateway.AccessLogField.contextRequestId(),
  extendedRequestId: apigateway.AccessLogField.contextExtendedRequestId(),
  requestTime: apigateway.AccessLogField.contextRequestTime(),
  httpMethod: apigateway.AccessLogField.contextHttpMethod(),
  resourcePath: apigateway.AccessLogField.contextResourcePath(),
  protocol: apigateway.AccessLogField.contextProtocol(),
  status: apigateway.AccessLogField.contextStatus(),
  responseLength: apigateway.AccessLogField.contextResponseLength(),
  responseLatency: apigateway.AccessLogField.contextResponseLatency(),
  integrationLatency: apigateway.AccessLogField.contextIntegrationLatency(),
  integrationStatus: apigateway.AccessLogField.contextIntegrationStatus(),
  integrationError: apigateway.AccessLogField.contextIntegrationErrorMessage(),
  errorMessage: apigateway.AccessLogField.contextErrorMessage(),
  ip: apigateway.AccessLogField.contextIdentitySourceIp(),
  caller: apigateway.AccessLogField.contextIdentityCaller(),
  userArn: apigateway.AccessLogField.contextIdentityUserArn(),
  // No AccessLogField helper exists for it; API Gateway fills it for private APIs.
  vpceId: '$context.identity.vpceId',
  xrayTraceId: apigateway.AccessLogField.contextXrayTraceId(),
} as const;

/**
 * Only the callers' role may invoke, and only through the admitted interface endpoints. Under
 * `identity` a tenant session may invoke only the tenant-free routes and its own `/t/<tenant>/`
 * (its `jube-tenant` principal tag in the resource); the denies hold that even where a same-account
 * identity policy grants more, and a session without the tag reaches no tenant route (an unresolved
 * policy variable matches nothing, so the `Null` check says it outright). Abbreviated ARNs
 * (`execute-api:/...`): the API's own id cannot appear in its own policy.
 */
export function resourcePolicy(callers: Pick<Callers, 'binding' | 'roleArn'>, vpcEndpointIds: readonly string[]): iam.PolicyDocument {
  const invoke = ['execute-api:Invoke'];
  const everything = ['execute-api:/*'];
  const callerArn = { 'aws:PrincipalArn': callers.roleArn };
  const own = routeResources(TENANT_TAG_VARIABLE).map(resourcePolicyResource);
  const perCaller =
    callers.binding === 'identity'
      ? [
          new iam.PolicyStatement({
            sid: 'AllowTenantSessionsOwnRoutes',
            principals: [new iam.ArnPrincipal(callers.roleArn)],
            actions: invoke,
            resources: own,
          }),
          new iam.PolicyStatement({
            sid: 'DenyTenantSessionsOtherRoutes',
            effect: iam.Effect.DENY,
            principals: [new iam.AnyPrincipal()],
            actions: invoke,
            notResources: own,
            conditions: { ArnLike: callerArn },
          }),
          new iam.PolicyStatement({
            sid: 'DenyUntaggedSessionsTenantRoutes',
            effect: iam.Effect.DENY,
            principals: [new iam.AnyPrincipal()],
            actions: invoke,
            resources: routeResources('*').filter((r) => r.method === '*').map(resourcePolicyResource),
            conditions: { Null: { [`aws:PrincipalTag/${TENANT_TAG_KEY}`]: 'true' } },
          }),
        ]
      : [
          new iam.PolicyStatement({
            sid: 'AllowOrchestratorInvoke',
            principals: [new iam.ArnPrincipal(callers.roleArn)],
            actions: invoke,
            resources: everything,
          }),
        ];
  return new iam.PolicyDocument({
    statements: [
      ...perCaller,
      new iam.PolicyStatement({
        sid: 'DenyEveryoneElse',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: invoke,
        resources: everything,
        conditions: { ArnNotLike: callerArn },
      }),
      new iam.PolicyStatement({
        sid: 'DenyOutsideVpcEndpoint',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { StringNotEquals: { 'aws:SourceVpce': vpcEndpointIds.length === 1 ? vpcEndpointIds[0] : [...vpcEndpointIds] } },
      }),
    ],
  });
}
