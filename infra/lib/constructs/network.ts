/**
 * The network the service lives in: isolated subnets only (no NAT, no internet gateway), an
 * interface endpoint for execute-api (the private API is reachable through it, or through callers'
 * own endpoints the config names), and an S3 gateway endpoint whose policy lets the execute
 * function fetch objects of the data bucket and nothing else. The execute function's security group
 * has exactly one egress rule: HTTPS to the region's S3 prefix list, which is how presigned
 * dataframe URLs are downloaded, and which the gateway endpoint's route is the only way to; a DNS
 * firewall answers only the data bucket's name. A created VPC's default security group is left
 * with no rules at all.
 *
 * The stack's execute-api endpoint has no private DNS in any VPC: nothing inside jube-r's VPC calls
 * the API (the DNS firewall answers no execute-api name there), so the endpoint serves other
 * networks by its `{api}-{vpce}` name, which public DNS resolves to its private addresses.
 *
 * In an existing (shared) VPC the stack changes nothing that is the rest of the VPC's: it associates
 * no DNS firewall, and its S3 gateway endpoint goes only into the route tables of jube-r's own
 * isolated subnets (which the config names and which must serve those subnets only); the VPC's owner
 * associates the rule group.
 */
import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { DeploymentConfig } from '../config.ts';
import { dnsFirewallAssociated } from '../environment-variables.ts';
import { DnsFirewall } from './dns-firewall.ts';

export interface NetworkProps {
  readonly vpc: DeploymentConfig['vpc'];
  readonly s3PrefixListId: string;
  /** CIDRs besides the VPC's own allowed to reach the execute-api endpoint (peered callers). */
  readonly peeredCallerCidrs: readonly string[];
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class Network extends Construct {
  readonly vpc: ec2.IVpc;
  readonly isolatedSubnets: ec2.SubnetSelection;
  /** The stack's own execute-api endpoint; none in an existing VPC configured 'callers-only'. */
  readonly apiEndpoint: ec2.InterfaceVpcEndpoint | undefined;
  /**
   * The execute function's only way to S3 (its policy names only the data bucket). In an existing VPC
   * it adds its route to the route tables of jube-r's isolated subnets only.
   */
  readonly s3Endpoint: ec2.GatewayVpcEndpoint;
  /** The execute function's security group: no ingress, egress only to S3 on 443. */
  readonly executeSecurityGroup: ec2.SecurityGroup;
  /** Set by restrictDnsTo. */
  dnsFirewall: DnsFirewall | undefined;
  private readonly vpcConfig: DeploymentConfig['vpc'];
  private readonly logRetention: logs.RetentionDays;
  private readonly logRemovalPolicy: RemovalPolicy;

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    this.vpcConfig = props.vpc;
    this.logRetention = props.logRetention;
    this.logRemovalPolicy = props.logRemovalPolicy;
    this.vpc = props.vpc.kind === 'create' ? this.createVpc(props.vpc, props) : importVpc(this, props.vpc);
    this.isolatedSubnets = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };

    const created = props.vpc.kind === 'create';
    this.apiEndpoint = created || props.vpc.executeApiEndpoint === 'own' ? this.addApiEndpoint(props) : undefined;
    this.s3Endpoint = this.vpc.addGatewayEndpoint('S3Endpoint', { service: ec2.GatewayVpcEndpointAwsService.S3, subnets: [this.isolatedSubnets] });

    this.executeSecurityGroup = new ec2.SecurityGroup(this, 'ExecuteSecurityGroup', {
      vpc: this.vpc,
      description: 'jube-r execute function: no ingress; egress only HTTPS to the S3 prefix list (presigned data downloads)',
      allowAllOutbound: false,
      allowAllIpv6Outbound: false,
    });
    // The one egress rule must be inline: CDK renders a prefix-list rule as a separate
    // AWS::EC2::SecurityGroupEgress, and a security group created without inline egress rules gets
    // EC2's default allow-all egress, which a separate rule does not remove.
    const cfnGroup = this.executeSecurityGroup.node.defaultChild as ec2.CfnSecurityGroup;
    cfnGroup.addPropertyOverride('SecurityGroupEgress', [
      {
        IpProtocol: 'tcp',
        FromPort: 443,
        ToPort: 443,
        DestinationPrefixListId: props.s3PrefixListId,
        Description: 'presigned GET of dataframes through the S3 gateway endpoint',
      },
    ]);
  }

  /**
   * No private DNS: nothing in jube-r's VPC may call the API (the DNS firewall answers no execute-api
   * name there), and in a shared VPC the name `<api>.execute-api...` would capture every workload's
   * execute-api calls (a VPC holds one such endpoint at most). Callers reach it by its `{api}-{vpce}`
   * name from their own network (output ApiVpcEndpointUrl).
   */
  private addApiEndpoint(props: NetworkProps): ec2.InterfaceVpcEndpoint {
    const endpoint = this.vpc.addInterfaceEndpoint('ExecuteApiEndpoint', {
      service: ec2.InterfaceVpcEndpointAwsService.APIGATEWAY,
      subnets: this.isolatedSubnets,
      privateDnsEnabled: false,
      open: false,
    });
    // HTTPS from inside the VPC and from peered callers' CIDRs only; the CIDRs come from the config,
    // not the VPC's token, so they are literals in the template.
    endpoint.connections.allowFrom(ec2.Peer.ipv4(props.vpc.cidr), ec2.Port.tcp(443), 'HTTPS from inside the VPC');
    for (const cidr of props.peeredCallerCidrs) {
      endpoint.connections.allowFrom(ec2.Peer.ipv4(cidr), ec2.Port.tcp(443), 'HTTPS from a peered caller network');
    }
    return endpoint;
  }

  /**
   * Lets the VPC's resolver answer only `domains` (DNS Firewall). Associated with a created VPC, and
   * with an existing one only when its config says it is dedicated to jube-r.
   */
  restrictDnsTo(domains: readonly string[]): DnsFirewall {
    this.dnsFirewall = new DnsFirewall(this, 'DnsFirewall', {
      allowedDomains: domains,
      vpcId: this.vpc.vpcId,
      associate: dnsFirewallAssociated({ vpc: this.vpcConfig }),
      logRetention: this.logRetention,
      logRemovalPolicy: this.logRemovalPolicy,
    });
    return this.dnsFirewall;
  }

  /** Narrows the S3 gateway endpoint to reading objects of the data bucket (no exfiltration path). */
  restrictS3EndpointTo(bucket: s3.IBucket): void {
    this.s3Endpoint.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ReadDataBucketObjectsOnly',
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
  }

  private createVpc(config: Extract<DeploymentConfig['vpc'], { kind: 'create' }>, props: NetworkProps): ec2.Vpc {
    const vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(config.cidr),
      maxAzs: config.maxAzs,
      natGateways: 0,
      // Nothing uses the default security group; a custom resource removes its allow-all rules.
      restrictDefaultSecurityGroup: true,
      enableDnsHostnames: true,
      enableDnsSupport: true,
      subnetConfiguration: [{ name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    });
    const flowLogGroup = new logs.LogGroup(this, 'FlowLogGroup', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    vpc.addFlowLog('FlowLog', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogGroup),
      trafficType: ec2.FlowLogTrafficType.ALL,
    });
    return vpc;
  }
}

function importVpc(scope: Construct, config: Extract<DeploymentConfig['vpc'], { kind: 'existing' }>): ec2.IVpc {
  return ec2.Vpc.fromVpcAttributes(scope, 'Vpc', {
    vpcId: config.vpcId,
    vpcCidrBlock: config.cidr,
    availabilityZones: [...config.availabilityZones],
    isolatedSubnetIds: [...config.isolatedSubnetIds],
    // One per subnet (the config schema refuses an existing VPC without them: SHARED_VPC_REFUSALS.s3Egress).
    isolatedSubnetRouteTableIds: [...(config.isolatedRouteTableIds ?? [])],
  });
}

/** ARNs of the subnets the execute function's ENIs live in (for scoping ec2:CreateNetworkInterface). */
export function subnetArns(scope: Construct, vpc: ec2.IVpc, selection: ec2.SubnetSelection): string[] {
  const stack = Stack.of(scope);
  return vpc.selectSubnets(selection).subnetIds.map((subnetId) =>
    stack.formatArn({ service: 'ec2', resource: 'subnet', resourceName: subnetId }),
  );
}
