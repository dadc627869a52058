import crypto from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Lua for the Redis stream: a trim that spares what consumer groups still need, and a
 * group's backlog. Each runs atomically, so no read can slip between its steps.
 */

/** Reads `XINFO GROUPS` replies (flat name/value lists) as tables. */
const GROUPS = `
local function groups(key)
  local list = {}
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', key)) do
    local group = {}
    for i = 1, #info, 2 do group[info[i]] = info[i + 1] end
    list[#list + 1] = group
  end
  return list
end
`;

/**
 * KEYS[1] the stream, ARGV[1] maxLen: trims back to maxLen entries, but never past an entry a
 * group has not acknowledged: up to each group's last delivered entry and below its oldest
 * pending one. At most 10000 entries go per call, so one call never stalls the server long.
 */
export const TRIM = `${GROUPS}
local key = KEYS[1]
local excess = redis.call('XLEN', key) - tonumber(ARGV[1])
if excess <= 0 then return 0 end
local function before(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
local stop, inclusive = nil, true
for _, group in ipairs(groups(key)) do
  local bound, included = group['last-delivered-id'], true
  if group['pending'] > 0 then
    bound, included = redis.call('XPENDING', key, group['name'])[2], false
  end
  if stop == nil or before(bound, stop) or (bound == stop and not included) then
    stop, inclusive = bound, included
  end
end
local last = '+'
if stop then
  if inclusive then last = stop else last = '(' .. stop end
end
local doomed = redis.call('XRANGE', key, '-', last, 'COUNT', math.min(excess, 10000))
if #doomed == 0 then return 0 end
local ms, seq = string.match(doomed[#doomed][1], '^(%d+)-(%d+)$')
return redis.call('XTRIM', key, 'MINID', ms .. '-' .. (tonumber(seq) + 1))
`;

/**
 * KEYS[1] the stream, ARGV[1] the group: { entries owed, oldest owed id or nil }. Redis 7
 * reports the undelivered count as the group's lag; where it cannot (entries deleted by
 * XDEL, or an older Redis), they are counted.
 */
export const BACKLOG = `${GROUPS}
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then return {0, false} end
for _, group in ipairs(groups(key)) do
  if group['name'] == ARGV[1] then
    local after = '(' .. group['last-delivered-id']
    local lag = group['lag']
    if not lag then lag = #redis.call('XRANGE', key, after, '+') end
    local oldest = false
    if group['pending'] > 0 then
      oldest = redis.call('XPENDING', key, ARGV[1])[2]
    elseif lag > 0 then
      local first = redis.call('XRANGE', key, after, '+', 'COUNT', 1)[1]
      if first then oldest = first[1] end
    end
    return {group['pending'] + lag, oldest}
  end
end
return {0, false}
`;

/** Runs `source` by its digest, loading it once into a server that does not know it yet. */
export function redisScript(source: string) {
  const sha = crypto.createHash('sha1').update(source).digest('hex');
  let loading: Promise<unknown> | undefined;
  return async (redis: Redis, key: string, args: Array<string | number>): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      // Every call that missed waits for one load instead of sending the script itself.
      loading ??= redis.script('LOAD', source).finally(() => {
        loading = undefined;
      });
      await loading;
      return redis.evalsha(sha, 1, key, ...args);
    }
  };
}
