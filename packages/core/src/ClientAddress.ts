/**
 * The network address of the client of the current request: what the
 * stores' pools without a principal are shared by (the replay guard, the
 * interaction store, the task store, 2025-11-25 sessions), so one client
 * address cannot take the room of every other unauthenticated caller.
 *
 * A `Context.Reference` the transport provides around each request
 * (`HttpTransport`: the socket's peer, or, behind proxies named in
 * `trustedProxies`, the address they forwarded in `X-Forwarded-For`);
 * `undefined` where there is none (stdio, in memory, a test), and the
 * anonymous pool is then one share.
 *
 * The stores count a share by {@link group}, not by the exact address. An
 * IPv6 client holds a whole block, not one address: at least a /64 (an
 * interface may take a fresh address from it at will), and a site is
 * assigned up to a /48 (RFC 6177), which holds 65,536 /64s. Counting by the
 * /64 would give one site 65,536 shares, enough to fill every pool of
 * unauthenticated callers; so IPv6 addresses are grouped by their /48: one
 * site is one client, as a network behind one IPv4 address (NAT) is. The
 * price is the same as for IPv4 behind carrier-grade NAT: clients of one
 * provider who share a /48 (a mobile carrier's /64s, a provider's /56s)
 * share one share; authorization gives each user a share of their own. An
 * IPv4-mapped IPv6 address (`::ffff:203.0.113.9`, what a dual-stack socket
 * reports for an IPv4 peer) counts as its IPv4 address.
 *
 * Gotcha: behind a proxy that is not trusted every client has the proxy's
 * address, so they share one share; a forwarded header is never read unless
 * the proxy is configured as trusted (anyone can send one).
 *
 * @since 0.2.0
 */
import { Context, Effect } from "effect"

/**
 * The current request's client address (see the module header).
 *
 * @since 0.2.0
 * @category references
 */
export const ClientAddress = Context.Reference<string | undefined>("@mrtr/core/ClientAddress", {
  defaultValue: () => undefined
})

/**
 * The share a client address counts in (see the module header): an IPv4
 * address as is; an IPv4-mapped IPv6 address as its IPv4 address; any other
 * IPv6 address as its /48 network, `<first three groups>::/48` (lower-case,
 * no leading zeros; a zone `%eth0` and brackets dropped); anything else
 * (not an IP address) as is.
 *
 * @example
 * ```ts
 * import { ClientAddress } from "@mrtr/core"
 *
 * ClientAddress.group("2001:db8:0:7:a:b:c:d") // "2001:db8:0::/48"
 * ClientAddress.group("::ffff:203.0.113.9") // "203.0.113.9"
 * ClientAddress.group("203.0.113.9") // "203.0.113.9"
 * ```
 *
 * @since 0.4.0
 * @category utils
 */
export const group = (address: string): string => {
  let text = address.trim()
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1)
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  if (!text.includes(":")) return address
  const groups = ipv6Groups(text.toLowerCase())
  if (groups === undefined) return address
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  }
  return `${groups.slice(0, 3).map((g) => g.toString(16)).join(":")}::/48`
}

/**
 * The {@link group} of the current request's client address; `undefined`
 * where there is none.
 *
 * @since 0.4.0
 * @category utils
 */
export const currentGroup: Effect.Effect<string | undefined> = Effect.map(
  Effect.service(ClientAddress),
  (address) => address === undefined ? undefined : group(address)
)

const hextet = /^[0-9a-f]{1,4}$/
const octet = /^(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$/

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail included), or `undefined` if it is not one. */
const ipv6Groups = (text: string): Array<number> | undefined => {
  let head = text
  const tail: Array<number> = []
  const lastColon = text.lastIndexOf(":")
  const last = text.slice(lastColon + 1)
  if (last.includes(".")) {
    const octets = last.split(".")
    if (octets.length !== 4 || !octets.every((o) => octet.test(o))) return undefined
    const [a, b, c, d] = octets.map(Number) as [number, number, number, number]
    tail.push((a << 8) | b, (c << 8) | d)
    // `::1.2.3.4` keeps its `::`; `::ffff:1.2.3.4` drops the colon before the IPv4 part
    head = text[lastColon - 1] === ":" ? text.slice(0, lastColon + 1) : text.slice(0, lastColon)
  }
  const halves = head.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string): Array<number> | undefined => {
    if (part === "") return []
    const out: Array<number> = []
    for (const g of part.split(":")) {
      if (!hextet.test(g)) return undefined
      out.push(parseInt(g, 16))
    }
    return out
  }
  const left = parse(halves[0]!)
  const right = halves.length === 2 ? parse(halves[1]!) : []
  if (left === undefined || right === undefined) return undefined
  const given = left.length + right.length + tail.length
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined
  return [...left, ...Array<number>(8 - given).fill(0), ...right, ...tail]
}
