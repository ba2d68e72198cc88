/**
 * Alarms and one dashboard per environment. What each alarm watches, and why its threshold:
 *
 * - execute throttles: a caller was turned away with 503 THROTTLED (reserved concurrency, or the
 *   PER_TENANT cap on tenant environments); any is worth knowing.
 * - execute errors: the function failed as a function (crash, OOM, Lambda timeout), not the script.
 * - execute duration p99 near the function timeout: scripts are running into the backstop.
 * - execute concurrent executions at the reservation: the next call is throttled.
 * - validate errors: the API handler itself failed (the contract's own errors are not Lambda errors).
 * - API 5XX: a caller saw a server error (EXECUTE_FAILED, EXECUTE_DEADLINE, INTERNAL, THROTTLED...).
 * - API 4XX rate: callers keep sending requests the contract refuses (a broken orchestrator).
 * - API latency p99 near the integration timeout: callers are close to API Gateway's own 504.
 * - dataframe staging failures: the execute function could not download a presigned table (the
 *   DNS firewall or the S3 route does not let the presigner's host through, the URL expired) or
 *   refused its source; any is worth knowing, since a mismatch fails every dataframe call.
 * - execute post-runtime extensions duration p99: how long the warm start's extension holds the
 *   Invoke phase after the answer (the refill of the next warm runner). It is billed, and while it
 *   lasts a same-key call gets a new cold environment and one more slot of the tenant cap.
 * - execute and validate init errors: an execution environment whose init failed or timed out, or
 *   was retried inside an invocation (Lambda's `platform.initReport` log line with a non-success
 *   status or phase `invoke`), which costs that call its time or fails it.
 * - DNS firewall blocks (where the stack owns the VPC and logs its Resolver queries): a name other
 *   than the data bucket's was asked for from jube-r's VPC, which only an escaped script or a
 *   changed dependency does.
 *
 * Alarm actions go to the SNS topic the config names (context `alarmTopicArn`); without one the
 * alarms only change state and show on the dashboard.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { DATAFRAME_STAGING_FAILED } from '../../../layers/contract/log-events.ts';

/** "Near the limit" for durations and latencies. */
export const NEAR_LIMIT_FRACTION = 0.9;
/** A 4XX rate above this, sustained, means the caller is broken rather than one request. */
export const CLIENT_ERROR_RATE = 0.25;

export interface AlarmLimits {
  readonly executeTimeoutMs: number;
  readonly reservedConcurrency: number;
  readonly apiIntegrationTimeoutMs: number;
}

/**
 * The refill after an answer (the next warm runner's start) measured about 2 s under load; past 1.5x
 * that, at p99, it holds environments busy (and billed) long enough to cost same-key calls their
 * warm environment.
 */
export const POST_RUNTIME_EXTENSIONS_P99_MS = 3_000;

export interface AlarmThresholds {
  readonly executeThrottles: number;
  readonly executeErrors: number;
  readonly executeDurationP99Ms: number;
  readonly executeConcurrentExecutions: number;
  readonly validateErrors: number;
  readonly api5xx: number;
  readonly api4xxRate: number;
  readonly apiLatencyP99Ms: number;
  readonly dataframeStagingFailures: number;
  readonly executePostRuntimeExtensionsP99Ms: number;
  readonly executeInitErrors: number;
  readonly validateInitErrors: number;
  readonly dnsFirewallBlocks: number;
}

/** Where the metric filter publishes: one namespace per stack, since a metric filter's metric has no stack dimension. */
export const metricNamespace = (stackName: string): string => `JubeR/${stackName}`;
export const DATAFRAME_STAGING_FAILURES_METRIC = 'DataframeStagingFailures';
export const INIT_ERRORS_METRIC = { execute: 'ExecuteInitErrors', validate: 'ValidateInitErrors' } as const;
export const DNS_FIREWALL_BLOCKS_METRIC = 'DnsFirewallBlocks';

/**
 * Lambda's init report in the JSON log format: an init that ended other than in success, or one run
 * again inside an invocation (phase `invoke`, a "suppressed init" after a failed or timed-out one).
 * https://docs.aws.amazon.com/lambda/latest/dg/telemetry-schema-reference.html (platform.initReport, InitPhase, Status)
 */
export const INIT_ERROR_FILTER =
  '{ ($.type = "platform.initReport") && (($.record.status = "error") || ($.record.status = "failure") || ($.record.status = "timeout") || ($.record.phase = "invoke")) }';
/** A Resolver query log entry the DNS firewall blocked (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/resolver-query-logs-format.html). */
export const DNS_FIREWALL_BLOCK_FILTER = '{ $.firewall_rule_action = "BLOCK" }';

/** Every alarm's threshold, from the limits it guards. Pure. */
export function alarmThresholds(limits: AlarmLimits): AlarmThresholds {
  return {
    executeThrottles: 1,
    executeErrors: 1,
    executeDurationP99Ms: Math.floor(limits.executeTimeoutMs * NEAR_LIMIT_FRACTION),
    executeConcurrentExecutions: limits.reservedConcurrency,
    validateErrors: 1,
    api5xx: 1,
    api4xxRate: CLIENT_ERROR_RATE,
    apiLatencyP99Ms: Math.floor(limits.apiIntegrationTimeoutMs * NEAR_LIMIT_FRACTION),
    dataframeStagingFailures: 1,
    executePostRuntimeExtensionsP99Ms: POST_RUNTIME_EXTENSIONS_P99_MS,
    executeInitErrors: 1,
    validateInitErrors: 1,
    dnsFirewallBlocks: 1,
  };
}

export interface MonitoringProps extends AlarmLimits {
  readonly dashboardName: string;
  readonly execute: lambda.IFunction;
  readonly executeLogGroup: logs.ILogGroup;
  readonly stackName: string;
  readonly validate: lambda.IFunction;
  readonly validateLogGroup: logs.ILogGroup;
  /** The VPC's Resolver query log, where the stack logs it (its own VPC); no DNS alarm without it. */
  readonly dnsQueryLogGroup: logs.ILogGroup | undefined;
  readonly stage: apigateway.Stage;
  readonly alarmTopicArn: string | undefined;
}

const PERIOD = Duration.minutes(5);

export class Monitoring extends Construct {
  /** dnsFirewallBlocks only where the stack logs the VPC's queries. */
  readonly alarms: Readonly<Partial<Record<keyof AlarmThresholds, cloudwatch.Alarm>> & Record<Exclude<keyof AlarmThresholds, 'dnsFirewallBlocks'>, cloudwatch.Alarm>>;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const t = alarmThresholds(props);
    const atLeast = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
    const alarm = (name: string, metric: cloudwatch.IMetric, threshold: number, description: string, evaluationPeriods = 1) =>
      new cloudwatch.Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: atLeast,
        // No traffic is not a failure.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });

    const counted = (id: string, logGroup: logs.ILogGroup, filterPattern: logs.IFilterPattern, metricName: string) =>
      new logs.MetricFilter(this, id, { logGroup, filterPattern, metricNamespace: metricNamespace(props.stackName), metricName, metricValue: '1' })
        .metric({ period: PERIOD, statistic: 'Sum' });
    const stagingFailures = counted('DataframeStagingFailuresFilter', props.executeLogGroup,
      logs.FilterPattern.stringValue('$.message', '=', DATAFRAME_STAGING_FAILED), DATAFRAME_STAGING_FAILURES_METRIC);
    const executeInitErrors = counted('ExecuteInitErrorsFilter', props.executeLogGroup, logs.FilterPattern.literal(INIT_ERROR_FILTER), INIT_ERRORS_METRIC.execute);
    const validateInitErrors = counted('ValidateInitErrorsFilter', props.validateLogGroup, logs.FilterPattern.literal(INIT_ERROR_FILTER), INIT_ERRORS_METRIC.validate);

    this.alarms = {
      executeThrottles: alarm('ExecuteThrottles', props.execute.metricThrottles({ period: PERIOD, statistic: 'Sum' }), t.executeThrottles,
        'Execute invocations throttled: callers got 503 THROTTLED (reserved concurrency or the PER_TENANT environment cap).'),
      executeErrors: alarm('ExecuteErrors', props.execute.metricErrors({ period: PERIOD, statistic: 'Sum' }), t.executeErrors,
        'The execute function failed as a function (crash, out of memory, Lambda timeout); callers got 502 EXECUTE_FAILED.'),
      executeDurationP99Ms: alarm('ExecuteDurationP99', props.execute.metricDuration({ period: PERIOD, statistic: 'p99' }), t.executeDurationP99Ms,
        `Execute duration p99 is within ${100 - NEAR_LIMIT_FRACTION * 100}% of the function timeout (${props.executeTimeoutMs} ms).`),
      executeConcurrentExecutions: alarm('ExecuteConcurrency', props.execute.metric('ConcurrentExecutions', { period: Duration.minutes(1), statistic: 'Maximum' }),
        t.executeConcurrentExecutions, `Execute concurrency reached its reservation (${props.reservedConcurrency}): the next call is throttled.`),
      validateErrors: alarm('ValidateErrors', props.validate.metricErrors({ period: PERIOD, statistic: 'Sum' }), t.validateErrors,
        'The validate (API) function failed as a function; callers got a bare 5XX from API Gateway.'),
      api5xx: alarm('Api5xx', props.stage.metricServerError({ period: PERIOD, statistic: 'Sum' }), t.api5xx,
        'The API answered 5XX (EXECUTE_FAILED, EXECUTE_DEADLINE, THROTTLED, INTERNAL or a gateway error).'),
      api4xxRate: alarm('Api4xxRate', props.stage.metricClientError({ period: PERIOD, statistic: 'Average' }), t.api4xxRate,
        `More than ${CLIENT_ERROR_RATE * 100}% of requests refused with 4XX for 15 minutes: the caller is sending what the contract refuses.`, 3),
      apiLatencyP99Ms: alarm('ApiLatencyP99', props.stage.metricLatency({ period: PERIOD, statistic: 'p99' }), t.apiLatencyP99Ms,
        `API latency p99 is within ${100 - NEAR_LIMIT_FRACTION * 100}% of the integration timeout (${props.apiIntegrationTimeoutMs} ms).`),
      dataframeStagingFailures: alarm('DataframeStagingFailures', stagingFailures, t.dataframeStagingFailures,
        'The execute function could not download (or refused) a dataframe: check that the presigned host resolves and routes (DNS firewall, S3 endpoint).'),
      executePostRuntimeExtensionsP99Ms: alarm('ExecutePostRuntimeExtensionsP99',
        props.execute.metric('PostRuntimeExtensionsDuration', { period: PERIOD, statistic: 'p99' }), t.executePostRuntimeExtensionsP99Ms,
        `The warm start's refill after the answer holds execute environments for ${t.executePostRuntimeExtensionsP99Ms} ms or more at p99: billed time, and same-key calls meanwhile start cold in new environments.`),
      executeInitErrors: alarm('ExecuteInitErrors', executeInitErrors, t.executeInitErrors,
        'An execute environment\'s init failed, timed out or was retried inside an invocation (platform.initReport): that call lost its time or failed.'),
      validateInitErrors: alarm('ValidateInitErrors', validateInitErrors, t.validateInitErrors,
        'A validate environment\'s init failed, timed out or was retried inside an invocation (platform.initReport).'),
      ...(props.dnsQueryLogGroup
        ? {
            dnsFirewallBlocks: alarm('DnsFirewallBlocks',
              counted('DnsFirewallBlocksFilter', props.dnsQueryLogGroup, logs.FilterPattern.literal(DNS_FIREWALL_BLOCK_FILTER), DNS_FIREWALL_BLOCKS_METRIC),
              t.dnsFirewallBlocks,
              "The DNS firewall blocked a name asked for from jube-r's VPC: only the data bucket's name is ever needed there (an escaped script, or a dependency that changed)."),
          }
        : {}),
    };

    if (props.alarmTopicArn) {
      const action = new cloudwatchActions.SnsAction(sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn));
      for (const a of this.allAlarms()) {
        a.addAlarmAction(action);
        a.addOkAction(action);
      }
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      widgets: [
        [new cloudwatch.AlarmStatusWidget({ title: 'jube-r alarms', alarms: this.allAlarms(), width: 24 })],
        ...chunk(
          this.allAlarms().map((a) => new cloudwatch.AlarmWidget({ alarm: a, title: a.node.id, width: 8 })),
          3,
        ),
      ],
    });
  }

  /** Every alarm this environment has. */
  allAlarms(): cloudwatch.Alarm[] {
    return Object.values(this.alarms).filter((a): a is cloudwatch.Alarm => a !== undefined);
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const rows: T[][] = [];
  for (let i = 0; i < items.length; i += size) rows.push(items.slice(i, i + size));
  return rows;
}
