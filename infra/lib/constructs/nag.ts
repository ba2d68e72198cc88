/**
 * How cdk-nag spells a resource in a finding id, so an acknowledgement names exactly one finding:
 * pseudo parameters as `<AWS::Name>` (the partition is a literal once the region is known,
 * @aws-cdk/core:enablePartitionLiterals), another resource's attribute as `<LogicalId>` or
 * `<LogicalId.Attr>`, and a policy variable `${x}` as `<x>`.
 */
import { type CfnElement, Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

const pseudo = (value: string, name: string): string => (Token.isUnresolved(value) ? `<AWS::${name}>` : value);

/** `arn:<partition>:<service>:<region>:<account>` as cdk-nag writes it for `stack`. */
export function nagArnPrefix(stack: Stack, service: string): string {
  return `arn:${pseudo(stack.partition, 'Partition')}:${service}:${pseudo(stack.region, 'Region')}:${pseudo(stack.account, 'AccountId')}`;
}

/** `<LogicalId>` (a Ref) or `<LogicalId.Attr>` of `construct`'s CloudFormation resource. */
export function nagRef(construct: IConstruct, attribute?: string): string {
  const id = Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
  return `<${id}${attribute ? `.${attribute}` : ''}>`;
}

/** A policy variable as cdk-nag renders it: `${aws:PrincipalTag/x}` -> `<aws:PrincipalTag/x>`. */
export const nagVariable = (text: string): string => text.replace(/\$\{([^}]+)\}/g, '<$1>');
