export interface ChatCompletionsEndpoint {
  url: string;
  model: string;
  apiKey?: string;
  fetchImpl?: typeof fetch;
}

export function chatCompletionsUrl(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, '');
  return root.endsWith('/chat/completions') ? root : `${root}/chat/completions`;
}

/**
 * One JSON-object chat completion from an OpenAI-compatible endpoint; resolves with the
 * response body's text. Shared by the error analyzer and the analysis experts.
 */
export async function requestChatCompletion(
  endpoint: ChatCompletionsEndpoint,
  systemPrompt: string,
  userContent: string,
  signal: AbortSignal,
): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const response = await (endpoint.fetchImpl ?? fetch)(endpoint.url, {
    method: 'POST',
    headers,
    signal,
    body: JSON.stringify({
      model: endpoint.model,
      messages: [
        { role: 'system', content: systemPrompt },
        { role: 'user', content: userContent },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    }),
  });
  const body = await response.text();
  if (!response.ok) {
    throw new Error(`LLM request failed: HTTP ${response.status}: ${body.slice(0, 300)}`);
  }
  return body;
}
