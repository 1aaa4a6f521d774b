/**
 * The page's addresses (docs/web.md, "Build and deployment"). `/` is the page itself;
 * `/account/delete` is the stable link to deleting an account, for people who do not have the app.
 * Both are the one index.html: the local server (local/server.ts) and CloudFront
 * (infra/constructs/web-hosting.ts) answer each path below with it, and main.ts shows the view of the
 * path it was opened at. No DOM here: the server side reads this file too.
 */
export const DELETE_ACCOUNT_PATH = '/account/delete';

/** The paths besides `/` that answer with index.html. */
export const PAGE_DEEP_LINKS: readonly string[] = [DELETE_ACCOUNT_PATH];

/** The request paths served as index.html for the deep links: each as written and with a trailing slash. */
export const DEEP_LINK_REQUEST_PATHS: readonly string[] = PAGE_DEEP_LINKS.flatMap((path) => [path, `${path}/`]);

/** Whether the page was opened at the account-deletion link (a trailing slash is the same link). */
export const isDeleteAccountPath = (pathname: string) => pathname.replace(/\/+$/, '') === DELETE_ACCOUNT_PATH;
