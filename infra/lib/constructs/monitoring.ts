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
}

/** Where the metric filter publishes: one namespace per stack, since a metric filter's metric has no stack dimension. */
export const metricNamespace = (stackName: string): string => `JubeR/${stackName}`;
export const DATAFRAME_STAGING_FAILURES_METRIC = 'DataframeStagingFailures';

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
  };
}

export interface MonitoringProps extends AlarmLimits {
  readonly dashboardName: string;
  readonly execute: lambda.IFunction;
  readonly executeLogGroup: logs.ILogGroup;
  readonly stackName: string;
  readonly validate: lambda.IFunction;
  readonly stage: apigateway.Stage;
  readonly alarmTopicArn: string | undefined;
}

const PERIOD = Duration.minutes(5);

export class Monitoring extends Construct {
  readonly alarms: Readonly<Record<keyof AlarmThresholds, cloudwatch.Alarm>>;
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

    const stagingFailures = new logs.MetricFilter(this, 'DataframeStagingFailuresFilter', {
      logGroup: props.executeLogGroup,
      filterPattern: logs.FilterPattern.stringValue('$.message', '=', DATAFRAME_STAGING_FAILED),
      metricNamespace: metricNamespace(props.stackName),
      metricName: DATAFRAME_STAGING_FAILURES_METRIC,
      metricValue: '1',
    }).metric({ period: PERIOD, statistic: 'Sum' });

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
    };

    if (props.alarmTopicArn) {
      const action = new cloudwatchActions.SnsAction(sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn));
      for (const a of Object.values(this.alarms)) {
        a.addAlarmAction(action);
        a.addOkAction(action);
      }
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      widgets: [
        [new cloudwatch.AlarmStatusWidget({ title: 'jube-r alarms', alarms: Object.values(this.alarms), width: 24 })],
        ...chunk(
          Object.values(this.alarms).map((a) => new cloudwatch.AlarmWidget({ alarm: a, title: a.node.id, width: 8 })),
          3,
        ),
      ],
    });
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const rows: T[][] = [];
  for (let i = 0; i < items.length; i += size) rows.push(items.slice(i, i + size));
  return rows;
}
