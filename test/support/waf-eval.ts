/**
 * A small evaluator of the WAF statements the web ACL uses, as written in the synthesized template
 * (CloudFormation's PascalCase), so a test can ask what a rule counts for a raw request instead of
 * comparing the rule's text with itself. It covers the fields, transformations and matches the ACL
 * uses and throws on anything else: a new kind of statement needs its semantics here first.
 *
 * Semantics (AWS WAF developer guide, "Text transformations", "Request components"): the field is
 * taken from the request as sent (still percent-encoded), the transformations run from the lowest
 * priority to the highest, then the match runs on the result, byte by byte. Byte strings are held as
 * latin1 strings (one character per byte).
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface RawRequest {
  /** The path as sent, percent-encoding included. */
  path: string;
  /** The query string as sent, without the `?`. */
  query: string;
}

const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/** ModSecurity-style URL decoding, as WAF's URL_DECODE: `+` is a space, invalid `%` sequences stay. */
function urlDecode(input: string): string {
  return input.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** NORMALIZE_PATH: repeated slashes, `/./` and `/x/../` removed. */
function normalizePath(input: string): string {
  let path = input.replace(/\/{2,}/g, '/');
  for (let previous = ''; previous !== path; ) {
    previous = path;
    path = path.replace(/\/\.(\/|$)/, '/').replace(/\/[^/]+\/\.\.(\/|$)/, '/');
  }
  return path;
}

const TRANSFORMS: Record<string, (input: string) => string> = {
  NONE: (s) => s,
  URL_DECODE: urlDecode,
  LOWERCASE: (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase()),
  NORMALIZE_PATH: normalizePath,
  COMPRESS_WHITE_SPACE: (s) => s.replace(/[\f\t\n\r\v\xa0]/g, ' ').replace(/ {2,}/g, ' '),
};

/** The values a field selects from the request (a single query argument may occur more than once). */
function fieldValues(field: Json, request: RawRequest): string[] {
  const [kind] = Object.keys(field);
  if (kind === 'QueryString') return [bytes(request.query)];
  if (kind === 'UriPath') return [bytes(request.path)];
  if (kind === 'SingleQueryArgument') {
    // Names compare case-insensitively; values are inspected as sent.
    const name = String(field.SingleQueryArgument.Name).toLowerCase();
    return request.query
      .split('&')
      .map((pair) => pair.split('='))
      .filter(([k]) => (k ?? '').toLowerCase() === name)
      .map(([, ...v]) => bytes(v.join('=')));
  }
  throw new Error(`waf-eval: field ${kind} is not implemented`);
}

function transformed(value: string, transformations: Json[]): string {
  return [...transformations]
    .sort((a, b) => a.Priority - b.Priority)
    .reduce((text, t) => {
      const apply = TRANSFORMS[t.Type as string];
      if (!apply) throw new Error(`waf-eval: transformation ${t.Type} is not implemented`);
      return apply(text);
    }, value);
}

/** Whether a (non rate-based) statement matches the request. */
export function statementMatches(statement: Json, request: RawRequest): boolean {
  const [kind] = Object.keys(statement);
  const s = statement[kind!];
  if (kind === 'ByteMatchStatement') {
    const needle = bytes(s.SearchString);
    const matches: Record<string, (v: string) => boolean> = {
      EXACTLY: (v) => v === needle,
      STARTS_WITH: (v) => v.startsWith(needle),
      ENDS_WITH: (v) => v.endsWith(needle),
      CONTAINS: (v) => v.includes(needle),
    };
    const match = matches[s.PositionalConstraint as string];
    if (!match) throw new Error(`waf-eval: positional constraint ${s.PositionalConstraint} is not implemented`);
    return fieldValues(s.FieldToMatch, request).some((v) => match(transformed(v, s.TextTransformations)));
  }
  if (kind === 'RegexMatchStatement') {
    const pattern = new RegExp(s.RegexString);
    return fieldValues(s.FieldToMatch, request).some((v) => pattern.test(transformed(v, s.TextTransformations)));
  }
  throw new Error(`waf-eval: statement ${kind} is not implemented`);
}

/** Whether a request counts toward a rate-based rule (its scope-down statement, or every request). */
export function countsTowardRateRule(rule: Json, request: RawRequest): boolean {
  const rate = rule.Statement.RateBasedStatement;
  if (!rate) throw new Error(`rule ${rule.Name} is not rate-based`);
  return rate.ScopeDownStatement === undefined || statementMatches(rate.ScopeDownStatement, request);
}
