import { describe, expect, it } from 'vitest';
import { httpUrl } from '../../console/src/safe-link.js';

/** Only absolute http(s) URLs from outside become links (runbook and generator URLs). */
describe('httpUrl', () => {
  it('keeps http and https URLs', () => {
    expect(httpUrl('https://runbooks.example/pod-crash')).toBe(
      'https://runbooks.example/pod-crash',
    );
    expect(httpUrl('http://prometheus:9090/graph?g0.expr=up')).toBe(
      'http://prometheus:9090/graph?g0.expr=up',
    );
    expect(httpUrl('  https://example.com/a b ')).toBe('https://example.com/a%20b');
  });

  it('refuses script, data, file and relative URLs, and what is not a string', () => {
    for (const raw of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'java\tscript:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox',
      'file:///etc/passwd',
      '/runbooks/pod-crash',
      '//evil.example/x',
      'runbook: see wiki',
      '',
      null,
      undefined,
      42,
    ]) {
      expect(httpUrl(raw), String(raw)).toBeNull();
    }
  });
});
