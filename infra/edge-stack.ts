import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { cloudFrontScoped, type CloudFrontScoped } from './constructs/cloudfront-scoped.js';
import { CLOUDFRONT_REGION } from './regions.js';
import type { ExpohubSettings } from './settings.js';

export interface ExpohubEdgeStackProps extends StackProps {
  settings: ExpohubSettings;
  /** The stage's stack, in another region, that uses what this one makes. */
  consumerStackName: string;
}

/**
 * The companion stack of a stage deployed outside us-east-1 (`Expohub-<stage>-edge`, always in
 * us-east-1): the distribution's web ACL and its custom domain's certificate, which CloudFront takes
 * from us-east-1 only. The stage's stack reads them through CDK's cross-region references (an SSM
 * parameter that this stack writes in the stage's region); `cdk deploy --all` deploys this stack first
 * (docs/deploy.md, "Regions").
 */
export class ExpohubEdgeStack extends Stack {
  readonly cloudFront: CloudFrontScoped;

  constructor(scope: Construct, id: string, props: ExpohubEdgeStackProps) {
    super(scope, id, {
      description: `expohub: the CloudFront-scoped pieces of ${props.consumerStackName} (web ACL, certificate), which exist only in ${CLOUDFRONT_REGION}`,
      crossRegionReferences: true,
      ...props,
      env: { account: props.env?.account, region: CLOUDFRONT_REGION },
    });
    this.cloudFront = cloudFrontScoped(this, props.settings);
    new CfnOutput(this, 'WebAclArn', { value: this.cloudFront.webAclArn, description: `The web ACL on ${props.consumerStackName}'s distribution` });
    if (this.cloudFront.certificate) new CfnOutput(this, 'CertificateArn', { value: this.cloudFront.certificate.certificateArn });
  }
}
