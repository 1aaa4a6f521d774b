import { afterEach, describe, expect, it } from 'vitest';
import { logger } from '../../lib/platform/logger.js';
import { writeAuditLine as audit, type AuditEvent } from '../../lib/platform/audit/log-line.js';
import { captureOutput, type Capture } from '../support/log-capture.js';

const fact: AuditEvent = { action: 'key.revoked', actor: 'u_1', subject: 'u_1', key_id: '42', via: 'jwt' };
let output: Capture | undefined;
const levelAtStart = logger.getLevelName();

afterEach(() => {
  output?.restore();
  logger.setLogLevel(levelAtStart);
});

describe('audit()', () => {
  it('writes one INFO line, the fact under `audit`, also when LOG_LEVEL is above INFO; the level stays', () => {
    logger.setLogLevel('WARN');
    output = captureOutput();
    logger.info('not written at WARN');
    audit(fact);
    logger.info('still not written');
    output.restore();
    expect(output.lines).toEqual([expect.objectContaining({ level: 'INFO', message: 'audit', audit: fact, service: 'expohub' })]);
    expect(logger.getLevelName()).toBe('WARN');
  });

  it('writes at INFO and below as any INFO line', () => {
    logger.setLogLevel('DEBUG');
    output = captureOutput();
    audit(fact);
    output.restore();
    expect(output.lines).toEqual([expect.objectContaining({ level: 'INFO', message: 'audit', audit: fact })]);
  });

  it('writes nothing when LOG_LEVEL is SILENT', () => {
    logger.setLogLevel('SILENT');
    output = captureOutput();
    audit(fact);
    output.restore();
    expect(output.lines).toEqual([]);
  });
});
