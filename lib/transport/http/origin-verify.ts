/**
 * The front door's contract between the stack and the functions (no imports: the CDK app reads it
 * too). CloudFront adds ORIGIN_VERIFY_HEADER, with the value of the secret whose ARN the functions
 * get as ORIGIN_VERIFY_SECRET_ARN, to every request it forwards to the HTTP API; a request without
 * it came to the execute-api host directly.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
export const ORIGIN_VERIFY_SECRET_ENV = 'ORIGIN_VERIFY_SECRET_ARN';
/** Added by CloudFront: the viewer's address and port, `ip:port` (IPv6: `2001:db8::1:443`, the port after the last colon). */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';

/** The IP of a CloudFront-Viewer-Address value, or undefined when it is not `ip:port`. */
export function viewerIp(headerValue: string | undefined): string | undefined {
  if (!headerValue) return undefined;
  const value = headerValue.trim();
  const colon = value.lastIndexOf(':');
  if (colon <= 0 || !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined;
  const ip = value.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (ipv4) return ipv4.slice(1).every((octet) => Number(octet) <= 255) ? ip : undefined;
  return /^[0-9a-fA-F:.]+$/.test(ip) && ip.includes(':') ? ip.toLowerCase() : undefined;
}
