import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/platform/config.js';

const base = { API_KEYS_TABLE: 'keys', HUB_TABLE: 'hub', JWT_SECRET: 'x'.repeat(32) };

describe('LOG_LEVEL', () => {
  it('defaults to INFO when unset or empty', () => {
    expect(loadConfig(base).LOG_LEVEL).toBe('INFO');
    expect(loadConfig({ ...base, LOG_LEVEL: '' }).LOG_LEVEL).toBe('INFO');
  });

  it.each(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'])('takes the Powertools level %s, in any case', (level) => {
    expect(loadConfig({ ...base, LOG_LEVEL: level }).LOG_LEVEL).toBe(level);
    expect(loadConfig({ ...base, LOG_LEVEL: ` ${level.toLowerCase()} ` }).LOG_LEVEL).toBe(level);
  });

  it('refuses anything else at cold start, naming the variable and the levels', () => {
    expect(() => loadConfig({ ...base, LOG_LEVEL: 'VERBOSE' })).toThrow('Invalid configuration: LOG_LEVEL: must be one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT');
  });
});
