/**
 * The share a client address counts in (`ClientAddress.group`): IPv4 as is,
 * IPv4-mapped IPv6 as its IPv4 address, other IPv6 by its /48; and the
 * replay guard counting by it, so a client rotating through the addresses
 * and the 65,536 /64s of its site's /48 has one share, not one per /64.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ClientAddress from "../src/ClientAddress.ts"
import { ReplayGuard, ReplayGuardFull } from "../src/ReplayGuard.ts"

describe("ClientAddress.group", () => {
  it("IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /48, anything else as is", () => {
    const cases: Array<readonly [string, string]> = [
      ["203.0.113.9", "203.0.113.9"],
      ["::ffff:203.0.113.9", "203.0.113.9"],
      ["::FFFF:cb00:7109", "203.0.113.9"],
      ["2001:db8:0:7:a:b:c:d", "2001:db8:0::/48"],
      ["2001:0DB8:0000:0007::1", "2001:db8:0::/48"],
      ["2001:db8:5:ffff:ffff:ffff:ffff:ffff", "2001:db8:5::/48"],
      ["2001:db8::1", "2001:db8:0::/48"],
      ["[2001:db8::5]", "2001:db8:0::/48"],
      ["fe80::1%eth0", "fe80:0:0::/48"],
      ["::1", "0:0:0::/48"],
      ["1:2:3:4:5:6:1.2.3.4", "1:2:3::/48"],
      ["unknown", "unknown"],
      ["1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9"],
      ["2001:db8::1::2", "2001:db8::1::2"],
      ["::ffff:300.1.1.1", "::ffff:300.1.1.1"]
    ]
    for (const [address, group] of cases) expect(ClientAddress.group(address), address).toBe(group)
  })

  it.effect("the replay guard counts one share for the /64s of one /48, and for an IPv4 address and its mapped form", () =>
    Effect.gen(function*() {
      const guard = yield* ReplayGuard.makeMemory({ maxEntries: 100, maxEntriesPerPrincipal: 2 })
      const later = Date.now() + 60_000
      const from = (address: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.provideService(effect, ClientAddress.ClientAddress, address)
      expect(yield* from("2001:db8:1:2::1")(guard.redeem("a1", later))).toBe(true)
      expect(yield* from("2001:db8:1:3::2")(guard.redeem("a2", later))).toBe(true)
      // Another /64 of the same /48: the same site, the same share (not one of its 65,536 /64s each).
      const full = yield* Effect.flip(from("2001:db8:1:ffff::3")(guard.redeem("a3", later)))
      expect(full).toBeInstanceOf(ReplayGuardFull)
      expect((full as ReplayGuardFull).scope).toBe("address")
      // The next /48 is another share.
      expect(yield* from("2001:db8:2::1")(guard.redeem("b1", later))).toBe(true)
      expect(yield* from("198.51.100.1")(guard.redeem("c1", later))).toBe(true)
      expect(yield* from("::ffff:198.51.100.1")(guard.redeem("c2", later))).toBe(true)
      expect(yield* Effect.flip(from("::ffff:198.51.100.1")(guard.redeem("c3", later)))).toBeInstanceOf(ReplayGuardFull)
    }))

  it.effect("currentGroup is the group of the request's address; none without one", () =>
    Effect.gen(function*() {
      expect(yield* ClientAddress.currentGroup).toBeUndefined()
      expect(yield* Effect.provideService(ClientAddress.currentGroup, ClientAddress.ClientAddress, "2001:db8::9")).toBe(
        "2001:db8:0::/48"
      )
    }))
})
