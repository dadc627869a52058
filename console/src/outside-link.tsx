import type { ComponentChildren } from 'preact';
import { Outside } from './outside';
import { httpUrl } from './safe-link';

/**
 * A URL from outside (a runbook, an alert's generator): a link when it is http(s), else the
 * text as it came, isolated and plainly not a link, so that a `javascript:` URL cannot run.
 */
export function OutsideLink({
  url,
  children,
  testId,
}: {
  url: string | null | undefined;
  children: ComponentChildren;
  testId?: string;
}) {
  if (!url) return null;
  const safe = httpUrl(url);
  if (safe)
    return (
      <a href={safe} rel="noopener noreferrer" target="_blank" data-testid={testId}>
        {children}
        <span class="visually-hidden"> (opens in a new tab)</span>
      </a>
    );
  return (
    <span class="not-a-link" data-testid={testId}>
      {children}: <Outside>{url}</Outside> <span class="muted">(not a web address)</span>
    </span>
  );
}
