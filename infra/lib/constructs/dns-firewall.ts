/**
 * A Route 53 Resolver DNS Firewall for the execute function's VPC. Isolated
 * subnets still reach the VPC resolver, and the resolver forwards any name to the internet's
 * authoritative servers: a script that escaped R could exfiltrate through the names it asks for
 * (`<data>.attacker.example`). The rule group answers only the names the execute handler itself
 * needs (the data bucket's S3 endpoint, for presigned dataframe downloads) and NXDOMAIN for every
 * other name, so no query leaves AWS. Resolver DNS Firewall fails closed by default (FirewallFailOpen
 * DISABLED): if it cannot evaluate a query, the query is blocked.
 *
 * The association covers every resource in the VPC, so the VPC must be dedicated to jube-r: callers
 * reach the API from their own VPC (docs/deploying.md, "Reaching the private API"). Where the stack
 * associates it (its own VPC), it also logs the VPC's queries (Resolver query logging) to a log group
 * of its own, whose `firewall_rule_action: "BLOCK"` entries the monitoring counts: a blocked name is
 * a script (or a dependency) asking for a way out.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53resolver from 'aws-cdk-lib/aws-route53resolver';
import { Construct } from 'constructs';

/** Rule priorities inside the group: the allow list first, then the catch-all block. */
export const ALLOW_RULE_PRIORITY = 100;
export const BLOCK_RULE_PRIORITY = 200;
/** The association's priority among the VPC's rule groups (DNS Firewall accepts 101-9900). */
export const ASSOCIATION_PRIORITY = 101;

export interface DnsFirewallProps {
  /** The only names answered (exact names, or `*.` wildcards). */
  readonly allowedDomains: readonly string[];
  readonly vpcId: string;
  /** false: create the rule group only, for the VPC's owner to associate (and no query logging). */
  readonly associate: boolean;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class DnsFirewall extends Construct {
  readonly ruleGroup: route53resolver.CfnFirewallRuleGroup;
  readonly association: route53resolver.CfnFirewallRuleGroupAssociation | undefined;
  /** The VPC's Resolver query log (where the stack associates the firewall). */
  readonly queryLogGroup: logs.LogGroup | undefined;

  constructor(scope: Construct, id: string, props: DnsFirewallProps) {
    super(scope, id);
    const allowed = new route53resolver.CfnFirewallDomainList(this, 'AllowedDomains', { domains: [...props.allowedDomains] });
    const everything = new route53resolver.CfnFirewallDomainList(this, 'AllDomains', { domains: ['*'] });
    this.ruleGroup = new route53resolver.CfnFirewallRuleGroup(this, 'RuleGroup', {
      firewallRules: [
        {
          priority: ALLOW_RULE_PRIORITY,
          action: 'ALLOW',
          firewallDomainListId: allowed.attrId,
          // S3's names are CNAMEs into AWS's own zones; the allowed name is what is checked, not
          // each name of the chain (which the catch-all would block).
          firewallDomainRedirectionAction: 'TRUST_REDIRECTION_DOMAIN',
        },
        { priority: BLOCK_RULE_PRIORITY, action: 'BLOCK', blockResponse: 'NXDOMAIN', firewallDomainListId: everything.attrId },
      ],
    });
    this.association = props.associate
      ? new route53resolver.CfnFirewallRuleGroupAssociation(this, 'Association', {
          firewallRuleGroupId: this.ruleGroup.attrId,
          vpcId: props.vpcId,
          priority: ASSOCIATION_PRIORITY,
        })
      : undefined;
    this.queryLogGroup = props.associate ? this.logQueries(props) : undefined;
  }

  /**
   * Resolver query logging of the VPC to a log group with the stack's retention. Resolver delivers
   * through CloudWatch Logs' vended-log delivery, which adds its own resource policy to the account
   * the first time (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/resolver-query-logs-choosing-target-resource.html).
   */
  private logQueries(props: DnsFirewallProps): logs.LogGroup {
    const group = new logs.LogGroup(this, 'QueryLogs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    const config = new route53resolver.CfnResolverQueryLoggingConfig(this, 'QueryLogging', { destinationArn: group.logGroupArn });
    new route53resolver.CfnResolverQueryLoggingConfigAssociation(this, 'QueryLoggingAssociation', {
      resolverQueryLogConfigId: config.attrId,
      resourceId: props.vpcId,
    });
    return group;
  }
}

/**
 * The S3 endpoint names the execute handler downloads presigned dataframe URLs from: the SDK's
 * virtual-hosted-style name of the data bucket in the deployment's region.
 */
export function dataBucketDomains(bucketName: string, region: string, urlSuffix: string): string[] {
  return [`${bucketName}.s3.${region}.${urlSuffix}`];
}
