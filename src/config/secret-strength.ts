/** CONTRACT, Hostile clients: the shortest credential `prod` starts with. */
export const MIN_SECRET_LENGTH = 16;

/**
 * The variables holding a credential shorter than MIN_SECRET_LENGTH: a guess at such a key
 * is cheap even when failures are throttled. Names only, never values.
 */
export function weakSecrets(config: {
  operatorKeys: ReadonlyMap<string, string>;
  consoleToken?: string;
  receiverTokens?: readonly string[];
  chatWebhookSecret?: string;
}): string[] {
  const short = (value: string | undefined) =>
    value !== undefined && value.length < MIN_SECRET_LENGTH;
  const weak: string[] = [];
  if ([...config.operatorKeys.values()].some(short)) weak.push('OPERATOR_KEYS');
  if (short(config.consoleToken)) weak.push('CONSOLE_TOKEN');
  if ((config.receiverTokens ?? []).some(short)) weak.push('RECEIVER_TOKENS');
  if (short(config.chatWebhookSecret)) weak.push('CHAT_WEBHOOK_SECRET');
  return weak;
}

/** What each weak variable means, for the `warn` line outside `prod`. */
export function weakSecretWarning(variable: string): string {
  return `${variable} holds a credential shorter than ${MIN_SECRET_LENGTH} characters: easy to guess, and refused in prod`;
}
