/**
 * The IAM ARNs the tenant binding compares (the deployment config, the API function's check): a
 * role (`arn:aws:iam::123456789012:role/path/name`) and the caller ARN API Gateway puts in the request
 * context for a session of it (`$context.identity.userArn`:
 * `arn:aws:sts::123456789012:assumed-role/name/session`; the role's path is not in it).
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns
 */

/** An IAM role ARN; groups: partition, account, path and name. */
export const ROLE_ARN_PATTERN = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/((?:[\w+=,.@-]+\/)*)([\w+=,.@-]{1,64})$/;

/** An assumed-role session's ARN; groups: partition, account, role name, session name. */
const ASSUMED_ROLE_ARN = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([\w+=,.@-]{1,64})\/([\w+=,.@-]{2,64})$/;

export interface RoleArn {
  readonly partition: string;
  readonly account: string;
  readonly name: string;
}

export interface RoleSession extends RoleArn {
  /** The role session name the caller chose when it assumed the role (2-64 characters). */
  readonly session: string;
}

export function parseRoleArn(arn: string): RoleArn | undefined {
  const m = ROLE_ARN_PATTERN.exec(arn);
  return m ? { partition: m[1]!, account: m[2]!, name: m[4]! } : undefined;
}

export function parseRoleSessionArn(arn: string): RoleSession | undefined {
  const m = ASSUMED_ROLE_ARN.exec(arn);
  return m ? { partition: m[1]!, account: m[2]!, name: m[3]!, session: m[4]! } : undefined;
}

/** Whether `session` is a session of `role` (same partition, account and role name). */
export function isSessionOf(session: RoleSession, role: RoleArn): boolean {
  return session.partition === role.partition && session.account === role.account && session.name === role.name;
}
