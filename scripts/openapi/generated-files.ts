/**
 * The generated files, path (from the repository root) -> content. lib/platform/config.ts is read when the
 * use cases are imported: the document needs none of its values, so placeholders stand in for the
 * ones it requires when the generator runs outside a configured environment.
 */
export async function generatedFiles(): Promise<Record<string, string>> {
  process.env.API_KEYS_TABLE ??= 'openapi-generation';
  process.env.HUB_TABLE ??= 'openapi-generation';
  if (!process.env.JWT_SECRET && !process.env.JWT_SECRET_ARN) process.env.JWT_SECRET = 'openapi-generation-placeholder-not-a-secret-000000';
  const { buildOpenApiDocument } = await import('./document.js');
  const document = buildOpenApiDocument();
  return {
    'lib/transport/openapi/generated/openapi.json': `${JSON.stringify(document, null, 2)}\n`,
  };
}
