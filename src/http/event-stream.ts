/**
 * The headers of every server-sent event stream the service opens (spec, Analysis tasks: the
 * stream's three headers; `x-accel-buffering: no` keeps nginx-style proxies from holding
 * events back).
 */
export const STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;
