import { describe, expect, it } from "@effect/vitest"
import * as ElicitResultDecoder from "../src/internal/elicitResult.ts"

// A small seeded generator: the same inputs on every run.
const prng = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)]!
  return { int, pick }
}

const odd: ReadonlyArray<unknown> = [
  undefined,
  null,
  0,
  -0,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  "x",
  true,
  false,
  [],
  ["a", "b"],
  ["a", 1],
  [undefined],
  // a hole
  Array(2),
  {},
  { a: 1 },
  new Date(0),
  Object.create(null),
  Object.create({ inherited: "x" })
]

describe("ElicitResult: the fast decoder agrees with the schema's", () => {
  it("on thousands of generated answers, well-formed and not", () => {
    const random = prng(0xe11c)
    const value = (): unknown => random.pick(odd)
    const content = (): unknown => {
      if (random.int(4) === 0) return value()
      const record: Record<string, unknown> = random.int(3) === 0 ? Object.create(null) : {}
      const keys = random.int(5)
      for (let i = 0; i < keys; i++) {
        const key = random.pick(["name", "age", "ok", "tags", "__proto__", "constructor", "toString", ""])
        const v = random.int(3) === 0 ? value() : random.pick(["Ada", 36, true, ["a"], 0.5])
        if (key === "__proto__") {
          Object.defineProperty(record, key, { value: v, enumerable: true, writable: true, configurable: true })
        } else record[key] = v
      }
      return record
    }
    const response = (): unknown => {
      if (random.int(10) === 0) return value()
      const r: Record<string, unknown> = random.int(5) === 0 ? Object.create(null) : {}
      const action = random.int(6)
      if (action < 5) r.action = random.pick(["accept", "decline", "cancel", "ACCEPT", 1, undefined])
      if (random.int(3) > 0) r.content = content()
      if (random.int(4) === 0) r._meta = { k: "v" }
      if (random.int(6) === 0) r.extra = value()
      return r
    }
    for (let i = 0; i < 20_000; i++) {
      const input = response()
      const fast = ElicitResultDecoder.decode(input)
      const schema = ElicitResultDecoder.decodeSchema(input)
      expect(fast._tag).toBe(schema._tag)
      if (fast._tag === "Some" && schema._tag === "Some") {
        expect({ ...fast.value, ...(fast.value.content === undefined ? {} : { content: { ...fast.value.content } }) })
          .toEqual({
            ...schema.value,
            ...(schema.value.content === undefined ? {} : { content: { ...schema.value.content } })
          })
        expect(Object.keys(fast.value)).toEqual(Object.keys(schema.value))
      }
    }
  })

  it("on the common answers, without the schema", () => {
    expect(ElicitResultDecoder.decode({ action: "accept", content: { name: "Ada", n: 1, ok: true, tags: ["a"] } }))
      .toEqual(
        ElicitResultDecoder.decodeSchema({ action: "accept", content: { name: "Ada", n: 1, ok: true, tags: ["a"] } })
      )
    expect(ElicitResultDecoder.decode({ action: "decline" })).toEqual(
      ElicitResultDecoder.decodeSchema({ action: "decline" })
    )
    expect(ElicitResultDecoder.decode({ action: "accept", content: undefined })._tag).toBe("None")
    expect(ElicitResultDecoder.decode({ action: "maybe" })._tag).toBe("None")
  })
})
