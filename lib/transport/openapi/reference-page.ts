/**
 * The API reference page (`GET /api/v1/docs`): the OpenAPI document rendered as one static HTML
 * page, no script and no external resource (CSP `default-src 'none'`). Rendered from the document
 * itself, so the page and the document cannot disagree.
 */
type Json = Record<string, unknown>;

export const REFERENCE_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** `code` spans for backticks, everything else escaped. */
const prose = (text: unknown) => escapeHtml(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');

function resolve(document: Json, node: unknown): Json {
  const refPath = (node as Json | undefined)?.$ref;
  if (typeof refPath !== 'string') return (node ?? {}) as Json;
  return refPath
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((at, key) => (at as Json)[key], document) as Json;
}

/** A one-line summary of a JSON schema: type and constraints. */
function describeSchema(schema: Json): string {
  const parts: string[] = [];
  if (schema.const !== undefined) parts.push(`= ${JSON.stringify(schema.const)}`);
  else if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  else if (schema.type) parts.push(String(schema.type));
  else if (Array.isArray(schema.anyOf)) parts.push((schema.anyOf as Json[]).map(describeSchema).join(' or '));
  for (const [key, label] of [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['maxItems', 'max items'],
    ['format', 'format'],
    ['pattern', 'pattern'],
  ] as const) {
    if (schema[key] !== undefined) parts.push(`${label} ${schema[key]}`);
  }
  return parts.join(', ');
}

function parameterTable(rows: { name: string; where: string; required: boolean; schema: Json }[]): string {
  if (!rows.length) return '';
  const body = rows
    .map((r) => `<tr><td><code>${escapeHtml(r.name)}</code></td><td>${r.where}</td><td>${r.required ? 'required' : 'optional'}</td><td>${escapeHtml(describeSchema(r.schema))}</td></tr>`)
    .join('');
  return `<table><thead><tr><th>name</th><th>in</th><th></th><th>schema</th></tr></thead><tbody>${body}</tbody></table>`;
}

const block = (title: string, value: unknown) => `<details><summary>${escapeHtml(title)}</summary><pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre></details>`;

function exampleUrl(path: string, example: Json): string {
  let url = path;
  for (const [k, v] of Object.entries((example.path ?? {}) as Json)) url = url.replace(`{${k}}`, encodeURIComponent(String(v)));
  const query = new URLSearchParams(example.query as Record<string, string> | undefined).toString();
  return query ? `${url}?${query}` : url;
}

function examples(method: string, path: string, list: Json[] | undefined): string {
  if (!list?.length) return '';
  const items = list
    .map((e) => `<li>${prose(e.summary)}: <code>${escapeHtml(`${method.toUpperCase()} ${exampleUrl(path, e)}`)}</code>${e.body === undefined ? '' : `<pre>${escapeHtml(JSON.stringify(e.body, null, 2))}</pre>`}</li>`)
    .join('');
  return `<h4>Examples</h4><ul>${items}</ul>`;
}

function securityText(operation: Json): string {
  const schemes = ((operation.security as Json[] | undefined) ?? []).flatMap((s) => Object.keys(s));
  return schemes.length ? schemes.join(' or ') : 'none';
}

function operationSection(document: Json, path: string, method: string, operation: Json): string {
  const params = ((operation.parameters as Json[] | undefined) ?? []).map((p) => ({ name: String(p.name), where: String(p.in), required: Boolean(p.required), schema: (p.schema ?? {}) as Json }));
  const body = (operation.requestBody as Json | undefined)?.content as Json | undefined;
  const responses = Object.entries((operation.responses ?? {}) as Json).map(([status, r]) => `<li><b>${status}</b> ${prose(resolve(document, r).description)}</li>`);
  const scope = operation['x-scope'] ? `; access-key scope <code>${escapeHtml(operation['x-scope'])}</code>` : '';
  return `<section id="${escapeHtml(operation.operationId)}"><h3><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${prose(operation.summary)}</p>${operation.description ? `<p>${prose(operation.description)}</p>` : ''}
<p>Authentication: ${securityText(operation)}${scope}</p>
${path === '/api/v1' ? '' : parameterTable(params)}
${body ? block('Request body schema', (body['application/json'] as Json).schema) : ''}
<h4>Responses</h4><ul>${responses.join('')}</ul>
${examples(method, path, operation['x-examples'] as Json[] | undefined)}
${path === '/api/v1' ? hubOperations(document, operation) : ''}</section>`;
}

function hubOperations(document: Json, operation: Json): string {
  const ops = operation['x-hub-operations'] as Record<string, Json>;
  return Object.entries(ops)
    .map(([name, op]) => {
      const query = resolve(document, op.query);
      const required = (query.required as string[]) ?? [];
      const rows = Object.entries(query.properties as Record<string, Json>).map(([p, schema]) => ({ name: p, where: 'query', required: required.includes(p), schema }));
      const auth = op.auth === 'none' ? 'none' : `${op.auth}: token=&lt;JWT&gt; or Authorization: Bearer &lt;JWT or access key&gt;; access-key scope <code>${escapeHtml(op.scope)}</code>`;
      return `<section id="do-${escapeHtml(name)}" class="hub"><h3><code>do=${escapeHtml(name)}</code></h3><p>${prose(op.summary)}</p><p>Authentication: ${auth}</p>
${parameterTable(rows)}${op.data ? block('data schema', resolve(document, op.data)) : '<p>data: no written schema yet</p>'}${examples('GET', '/api/v1', op.examples as Json[])}</section>`;
    })
    .join('\n');
}

export function renderReferencePage(document: Json): string {
  const info = document.info as Json;
  const paths = document.paths as Record<string, Record<string, Json>>;
  const byTag = new Map<string, string[]>();
  const toc: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = String((operation.tags as string[])[0]);
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationSection(document, path, method, operation)]);
      toc.push(`<li><a href="#${escapeHtml(operation.operationId)}">${method.toUpperCase()} ${escapeHtml(path)}</a></li>`);
    }
  }
  const sections = [...byTag].map(([tag, html]) => `<h2>${escapeHtml(tag)}</h2>${html.join('\n')}`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)}: API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f4f6f8;padding:.6rem;overflow:auto}table{border-collapse:collapse}td,th{border:1px solid #d6dbe1;padding:.2rem .5rem;text-align:left}section{border-top:1px solid #d6dbe1;margin-top:1.2rem}.method{background:#1d2330;color:#fff;padding:0 .4rem;border-radius:3px}.hub{margin-left:1.5rem}</style>
</head><body>
<h1>${escapeHtml(info.title)}: API reference</h1>
<p>${prose(info.description)}</p>
<p>The machine-readable document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${escapeHtml(document.openapi)}).</p>
<ul>${toc.join('')}</ul>
${sections}
</body></html>
`;
}
