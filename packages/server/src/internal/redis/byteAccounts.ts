/**
 * The byte accounts the Redis stores keep in Lua: beside a sorted set of ids (scored by expiry), a hash of each id's
 * bytes and their sum under `#total` (never an id). `trim(z, b, now)` drops what expired from both; `total(b)` is the
 * sum. The task store and the interaction store prepend this to their scripts.
 */
export const byteAccountsLua = `
local function trim(z, b, now)
  local gone = redis.call('ZRANGEBYSCORE', z, '-inf', now)
  for _, id in ipairs(gone) do
    local n = redis.call('HGET', b, id)
    if n then
      redis.call('HINCRBY', b, '#total', -tonumber(n))
      redis.call('HDEL', b, id)
    end
  end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', z, '-inf', now) end
end
local function total(b) return tonumber(redis.call('HGET', b, '#total') or '0') end
`
