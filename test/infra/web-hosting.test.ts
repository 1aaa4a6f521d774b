import { runInNewContext } from 'node:vm';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { WebHosting } from '../../infra/constructs/web-hosting.js';
import { DELETE_ACCOUNT_PATH } from '../../web/src/page-paths.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The page's hosting alone (no functions to bundle, no page to upload): CloudFront answers the
 * page's deep links with index.html (docs/web.md, "Build and deployment").
 */
function synthHosting(): Json {
  const stack = new Stack(new App(), 'Hosting');
  new WebHosting(stack, 'Web', {
    apiDomainName: 'abc123.execute-api.us-east-1.amazonaws.com',
    originVerifySecret: new Secret(stack, 'OriginVerify'),
    webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/test/0a1b2c3d-0000-4000-8000-000000000000',
  });
  return Template.fromStack(stack).toJSON().Resources as Json;
}

describe('the page behind CloudFront', () => {
  const resources = synthHosting();
  const [functionId, fn] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::CloudFront::Function')!;
  const distribution = Object.values(resources).find((r) => r.Type === 'AWS::CloudFront::Distribution')!.Properties.DistributionConfig;

  /** What the deployed function does to a viewer request for `uri`: its code run as CloudFront runs it. */
  const rewrite = (uri: string): string => {
    const request = { method: 'GET', uri, querystring: {}, headers: {} };
    const handled = runInNewContext(`${fn.Properties.FunctionCode as string}\nhandler(event);`, { event: { version: '1.0', request } }) as { uri: string };
    return handled.uri;
  };

  it('answers /account/delete (with or without a trailing slash) with index.html, and only the deep links', () => {
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(fn.Properties.AutoPublish).toBe(true);
    expect(distribution.DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } }]);
    expect(distribution.DefaultRootObject).toBe('index.html');

    expect(rewrite(DELETE_ACCOUNT_PATH)).toBe('/index.html');
    expect(rewrite(`${DELETE_ACCOUNT_PATH}/`)).toBe('/index.html');
    // The assets, the root (the default root object) and anything else reach the bucket as asked.
    for (const uri of ['/', '/index.html', '/assets/app-3F2A.js', '/account', '/account/deleted', '/account/delete/x']) expect(rewrite(uri), uri).toBe(uri);
    // The API and share behaviours have no such function.
    for (const behavior of distribution.CacheBehaviors as Json[]) expect(behavior.FunctionAssociations, behavior.PathPattern).toBeUndefined();
  });
});
