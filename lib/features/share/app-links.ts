import { config } from '../../platform/config.js';

/**
 * The app association files (docs/hub-api.md, "The share page"), so that a share link opens the app
 * directly on phones: iOS Universal Links (`/.well-known/apple-app-site-association`) and Android
 * App Links (`/.well-known/assetlinks.json`), both for the share pages' paths `/s/*`. Served only
 * when configured (APPLE_APP_IDS; ANDROID_APP_PACKAGE with ANDROID_CERT_SHA256); otherwise 404.
 */
export function appleAppSiteAssociation(appIds: readonly string[] = config.APPLE_APP_IDS): object | undefined {
  if (appIds.length === 0) return undefined;
  return {
    applinks: {
      // Current format (iOS 13+) and the older one, which earlier iOS versions read.
      details: [{ appIDs: [...appIds], components: [{ '/': '/s/*', comment: 'share pages' }] }, ...appIds.map((appID) => ({ appID, paths: ['/s/*'] }))],
    },
  };
}

export function assetLinks(pkg: string | undefined = config.ANDROID_APP_PACKAGE, fingerprints: readonly string[] = config.ANDROID_CERT_SHA256): object[] | undefined {
  if (!pkg || fingerprints.length === 0) return undefined;
  return [{ relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android_app', package_name: pkg, sha256_cert_fingerprints: [...fingerprints] } }];
}
