/**
 * (d) requiredCapabilities / isSatisfiedBy / missingCapabilities / mergeCapabilities tables.
 */
import { assert, describe, it } from "@effect/vitest"
import { validateWire } from "@mrtr/test-support/wire"
import * as P from "../src/index.ts"

const formRequest: P.Schema.InputRequest = {
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }
}
const explicitFormRequest: P.Schema.InputRequest = {
  method: "elicitation/create",
  params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } }
}
const urlRequest: P.Schema.InputRequest = {
  method: "elicitation/create",
  params: { mode: "url", message: "Sign in", url: "https://auth.example/x" }
}
const message = { role: "user" as const, content: { type: "text" as const, text: "hi" } }
const sampling = (extra: Partial<P.Schema.CreateMessageRequestParams> = {}): P.Schema.InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [message], maxTokens: 10, ...extra }
})
const rootsRequest: P.Schema.InputRequest = { method: "roots/list" }
const tool: P.Schema.Tool = { name: "t", inputSchema: { type: "object" } }

describe("requiredCapabilities", () => {
  const table: ReadonlyArray<readonly [string, P.Schema.InputRequest, P.Schema.ClientCapabilities]> = [
    ["elicitation without mode", formRequest, { elicitation: {} }],
    ["elicitation mode form", explicitFormRequest, { elicitation: {} }],
    ["elicitation mode url", urlRequest, { elicitation: { url: {} } }],
    ["sampling", sampling(), { sampling: {} }],
    ["sampling includeContext none", sampling({ includeContext: "none" }), { sampling: {} }],
    ["sampling includeContext thisServer", sampling({ includeContext: "thisServer" }), { sampling: { context: {} } }],
    ["sampling includeContext allServers", sampling({ includeContext: "allServers" }), { sampling: { context: {} } }],
    ["sampling with tools", sampling({ tools: [tool] }), { sampling: { tools: {} } }],
    ["sampling with an empty tools array", sampling({ tools: [] }), { sampling: { tools: {} } }],
    ["sampling with toolChoice", sampling({ toolChoice: { mode: "none" } }), { sampling: { tools: {} } }],
    [
      "sampling with tools and context",
      sampling({ tools: [tool], includeContext: "allServers" }),
      { sampling: { context: {}, tools: {} } }
    ],
    ["roots/list", rootsRequest, { roots: {} }],
    ["roots/list with params", { method: "roots/list", params: {} }, { roots: {} }]
  ]
  for (const [label, request, expected] of table) {
    it(label, () => {
      const required = P.Capabilities.requiredCapabilities(request)
      assert.deepStrictEqual(required, expected)
      validateWire("ClientCapabilities", required)
    })
  }

  it("requiredCapabilitiesForAll unions a whole InputRequests map", () => {
    assert.deepStrictEqual(
      P.Capabilities.requiredCapabilitiesForAll({
        a: formRequest,
        b: urlRequest,
        c: sampling({ tools: [tool] }),
        d: rootsRequest
      }),
      { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} }
    )
    assert.deepStrictEqual(P.Capabilities.requiredCapabilitiesForAll({}), {})
    assert.deepStrictEqual(P.Capabilities.requiredCapabilitiesForAll([formRequest, formRequest]), { elicitation: {} })
  })
})

describe("isSatisfiedBy / missingCapabilities", () => {
  const conformanceDefaults: P.Schema.ClientCapabilities = {
    sampling: {},
    elicitation: {},
    roots: { listChanged: true }
  }
  const table: ReadonlyArray<
    readonly [string, P.Schema.ClientCapabilities, P.Schema.ClientCapabilities, P.Schema.ClientCapabilities | undefined]
  > = [
    ["nothing required, nothing declared", {}, {}, undefined],
    ["form required, elicitation {} declared", { elicitation: {} }, { elicitation: {} }, undefined],
    ["form required, elicitation.form declared", { elicitation: {} }, { elicitation: { form: {} } }, undefined],
    ["form required, url-only declared", { elicitation: {} }, { elicitation: { url: {} } }, { elicitation: {} }],
    ["form required, nothing declared", { elicitation: {} }, {}, { elicitation: {} }],
    ["form required, only sampling declared", { elicitation: {} }, { sampling: {} }, { elicitation: {} }],
    ["url required, elicitation {} declared (form only)", { elicitation: { url: {} } }, { elicitation: {} }, {
      elicitation: { url: {} }
    }],
    ["url required, elicitation.form declared", { elicitation: { url: {} } }, { elicitation: { form: {} } }, {
      elicitation: { url: {} }
    }],
    ["url required, elicitation.url declared", { elicitation: { url: {} } }, { elicitation: { url: {} } }, undefined],
    ["form+url required, url declared", { elicitation: { form: {}, url: {} } }, { elicitation: { url: {} } }, {
      elicitation: { form: {} }
    }],
    ["form+url required, both declared", { elicitation: { form: {}, url: {} } }, {
      elicitation: { form: {}, url: {} }
    }, undefined],
    ["sampling required, sampling declared", { sampling: {} }, { sampling: {} }, undefined],
    ["sampling required, nothing declared", { sampling: {} }, {}, { sampling: {} }],
    ["sampling.tools required, sampling {} declared", { sampling: { tools: {} } }, { sampling: {} }, {
      sampling: { tools: {} }
    }],
    [
      "sampling.tools required, sampling.tools declared",
      { sampling: { tools: {} } },
      { sampling: { tools: {} } },
      undefined
    ],
    ["sampling.context required, sampling.tools declared", { sampling: { context: {} } }, { sampling: { tools: {} } }, {
      sampling: { context: {} }
    }],
    ["sampling tools+context required, context declared", { sampling: { tools: {}, context: {} } }, {
      sampling: { context: {} }
    }, { sampling: { tools: {} } }],
    ["sampling tools+context required, nothing declared", { sampling: { tools: {}, context: {} } }, {}, {
      sampling: { tools: {}, context: {} }
    }],
    ["roots required, roots declared", { roots: {} }, { roots: {} }, undefined],
    ["roots required, not declared", { roots: {} }, { sampling: {} }, { roots: {} }],
    [
      "conformance defaults cover form + sampling + roots",
      { elicitation: {}, sampling: {}, roots: {} },
      conformanceDefaults,
      undefined
    ],
    ["conformance defaults lack elicitation.url", { elicitation: { url: {} } }, conformanceDefaults, {
      elicitation: { url: {} }
    }],
    ["conformance defaults lack sampling.tools", { sampling: { tools: {} } }, conformanceDefaults, {
      sampling: { tools: {} }
    }],
    ["capability-check scenario: only sampling declared", { elicitation: {}, sampling: {} }, { sampling: {} }, {
      elicitation: {}
    }],
    ["extension required and declared", { extensions: { "io.example/x": {} } }, {
      extensions: { "io.example/x": { v: 1 } }
    }, undefined],
    ["extension required, another declared", { extensions: { "io.example/x": {} } }, {
      extensions: { "io.example/y": {} }
    }, {
      extensions: { "io.example/x": {} }
    }],
    ["experimental required, missing", { experimental: { beta: {} } }, {}, { experimental: { beta: {} } }]
  ]
  for (const [label, required, declared, missing] of table) {
    it(label, () => {
      assert.deepStrictEqual(P.Capabilities.missingCapabilities(required, declared), missing)
      assert.strictEqual(P.Capabilities.isSatisfiedBy(required, declared), missing === undefined)
      if (missing !== undefined) validateWire("ClientCapabilities", missing)
    })
  }

  it("requirements computed from input requests against declarations", () => {
    const declared: P.Schema.ClientCapabilities = { elicitation: {}, sampling: {} }
    assert.isTrue(P.Capabilities.isSatisfiedBy(P.Capabilities.requiredCapabilities(formRequest), declared))
    assert.isFalse(P.Capabilities.isSatisfiedBy(P.Capabilities.requiredCapabilities(urlRequest), declared))
    assert.isTrue(P.Capabilities.isSatisfiedBy(P.Capabilities.requiredCapabilities(sampling()), declared))
    assert.isFalse(P.Capabilities.isSatisfiedBy(
      P.Capabilities.requiredCapabilities(sampling({ toolChoice: { mode: "auto" } })),
      declared
    ))
    assert.isTrue(
      P.Capabilities.isSatisfiedBy(P.Capabilities.requiredCapabilities(sampling({ includeContext: "none" })), declared)
    )
    assert.isFalse(P.Capabilities.isSatisfiedBy(P.Capabilities.requiredCapabilities(rootsRequest), declared))
  })

  it("missingCapabilities feeds a -32021 error that validates against the schema", () => {
    const missing = P.Capabilities.missingCapabilities(P.Capabilities.requiredCapabilities(formRequest), {
      sampling: {}
    })
    assert.deepStrictEqual(missing, { elicitation: {} })
    const error = P.ErrorCode.McpError.missingRequiredClientCapability(missing!)
    assert.strictEqual(error.code, -32021)
    assert.deepStrictEqual(error.data, { requiredCapabilities: { elicitation: {} } })
    validateWire("MissingRequiredClientCapabilityError", P.JsonRpc.failure(1, error))
  })
})

describe("mergeCapabilities", () => {
  const table: ReadonlyArray<
    readonly [string, P.Schema.ClientCapabilities, P.Schema.ClientCapabilities, P.Schema.ClientCapabilities]
  > = [
    ["empty + empty", {}, {}, {}],
    ["form + form", { elicitation: {} }, { elicitation: {} }, { elicitation: {} }],
    ["form + url", { elicitation: {} }, { elicitation: { url: {} } }, { elicitation: { form: {}, url: {} } }],
    ["url + url", { elicitation: { url: {} } }, { elicitation: { url: {} } }, { elicitation: { url: {} } }],
    ["explicit form + nothing", { elicitation: { form: {} } }, {}, { elicitation: { form: {} } }],
    ["sampling + sampling.tools", { sampling: {} }, { sampling: { tools: {} } }, { sampling: { tools: {} } }],
    ["sampling.context + sampling.tools", { sampling: { context: {} } }, { sampling: { tools: {} } }, {
      sampling: { context: {}, tools: {} }
    }],
    ["roots + sampling", { roots: {} }, { sampling: {} }, { roots: {}, sampling: {} }],
    ["extensions are merged by key", { extensions: { a: {} } }, { extensions: { b: { x: 1 } } }, {
      extensions: { a: {}, b: { x: 1 } }
    }]
  ]
  for (const [label, a, b, expected] of table) {
    it(label, () => {
      assert.deepStrictEqual(P.Capabilities.mergeCapabilities(a, b), expected)
      assert.deepStrictEqual(P.Capabilities.mergeCapabilities(b, a), expected)
      // The merge is satisfied exactly by declarations that satisfy both sides.
      assert.isTrue(P.Capabilities.isSatisfiedBy(a, expected))
      assert.isTrue(P.Capabilities.isSatisfiedBy(b, expected))
    })
  }

  it("isEmptyCapabilities", () => {
    assert.isTrue(P.Capabilities.isEmptyCapabilities({}))
    assert.isFalse(P.Capabilities.isEmptyCapabilities({ roots: {} }))
  })
})

describe("extension names like Object.prototype members", () => {
  it("are kept by mergeCapabilities and checked by missingCapabilities like any other name", () => {
    const odd = JSON.parse(
      "{\"extensions\":{\"__proto__\":{\"v\":1},\"constructor\":{},\"toString\":{}}}"
    ) as P.Schema.ClientCapabilities
    const merged = P.Capabilities.mergeCapabilities(odd, { extensions: { other: {} } })
    assert.deepStrictEqual(Object.keys(merged.extensions ?? {}).sort(), [
      "__proto__",
      "constructor",
      "other",
      "toString"
    ])
    assert.isTrue(Object.hasOwn(merged.extensions ?? {}, "__proto__"))
    // declaring nothing does not count as declaring "constructor" or "toString"
    const missing = P.Capabilities.missingCapabilities({ extensions: { constructor: {}, toString: {} } }, {})
    assert.deepStrictEqual(Object.keys(missing?.extensions ?? {}).sort(), ["constructor", "toString"])
    assert.isFalse(P.Capabilities.isSatisfiedBy({ extensions: { toString: {} } }, { extensions: {} }))
    assert.isTrue(P.Capabilities.isSatisfiedBy({ extensions: { toString: {} } }, odd))
  })
})

describe("describeCapabilities", () => {
  it("names each capability with its sub-capabilities, form mode for an empty elicitation, odd keys quoted", () => {
    assert.strictEqual(P.Capabilities.describeCapabilities({ elicitation: {} }), "elicitation.form")
    assert.strictEqual(P.Capabilities.describeCapabilities({ elicitation: { url: {} } }), "elicitation.url")
    assert.strictEqual(
      P.Capabilities.describeCapabilities({ elicitation: { form: {}, url: {} }, roots: {} }),
      "elicitation.form, elicitation.url, roots"
    )
    assert.strictEqual(
      P.Capabilities.describeCapabilities({ sampling: { tools: {}, context: {} } }),
      "sampling.tools, sampling.context"
    )
    assert.strictEqual(P.Capabilities.describeCapabilities({ sampling: {} }), "sampling")
    assert.strictEqual(P.Capabilities.describeCapabilities({ ["x\ny"]: { ["a b"]: {} } } as never), "\"x\\ny\".\"a b\"")
    assert.strictEqual(P.Capabilities.describeCapabilities({}), "")
    const shown = P.Capabilities.describeCapabilities({ extensions: { "x\u2028y\u202e\u0085\u009b": {} } } as never)
    assert.strictEqual(shown, "extensions.\"x\\u2028y\\u202e\\u0085\\u009b\"")
    assert.notMatch(shown, /[\u2028\u202e\u0085\u009b]/)
  })

  it("is what -32021 MissingRequiredClientCapability says", () => {
    const error = P.ErrorCode.McpError.missingRequiredClientCapability({ elicitation: { url: {} } })
    assert.strictEqual(error.message, "Missing required client capability: elicitation.url")
    assert.deepStrictEqual(error.data, { requiredCapabilities: { elicitation: { url: {} } } })
  })
})
