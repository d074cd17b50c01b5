/**
 * ErrorCode, httpStatusOf, McpError, the JSON-RPC envelope helpers and the
 * Meta constants.
 */
import { describe, expect, it } from "@effect/vitest"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Schema } from "effect"
import { MAX_ERROR_MESSAGE_LENGTH, McpError } from "../src/ErrorCode.ts"
import * as P from "../src/index.ts"

describe("ErrorCode / httpStatusOf", () => {
  it("has the codes of the spec", () => {
    expect(P.ErrorCode.ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022
    })
  })

  const table: ReadonlyArray<readonly [number, number]> = [
    [-32601, 404],
    [-32700, 400],
    [-32600, 400],
    [-32602, 400],
    [-32020, 400],
    [-32021, 400],
    [-32022, 400],
    [-32603, 200],
    [-32000, 200],
    [42, 200]
  ]
  for (const [code, status] of table) {
    it(`${code} → HTTP ${status}`, () => expect(P.ErrorCode.httpStatusOf(code)).toBe(status))
  }

  it("isModernErrorCode", () => {
    expect([-32020, -32021, -32022].every(P.ErrorCode.isModernErrorCode)).toBe(true)
    expect([-32600, -32601, -32602, -32603, -32700].some(P.ErrorCode.isModernErrorCode)).toBe(false)
  })
})

describe("McpError", () => {
  const table: ReadonlyArray<readonly [string, P.ErrorCode.McpError, number, RegExp, unknown]> = [
    ["parseError", P.ErrorCode.McpError.parseError(), -32700, /Parse error/, undefined],
    ["invalidRequest", P.ErrorCode.McpError.invalidRequest("no method"), -32600, /no method/, undefined],
    ["methodNotFound", P.ErrorCode.McpError.methodNotFound("ping"), -32601, /Method not found: ping/, undefined],
    ["invalidParams", P.ErrorCode.McpError.invalidParams("bad", { field: "name" }), -32602, /bad/, { field: "name" }],
    ["internalError", P.ErrorCode.McpError.internalError(), -32603, /Internal error/, undefined],
    ["headerMismatch", P.ErrorCode.McpError.headerMismatch("Mcp-Name"), -32020, /Mcp-Name/, undefined],
    [
      "missingRequiredClientCapability",
      P.ErrorCode.McpError.missingRequiredClientCapability({ sampling: {} }),
      -32021,
      /sampling/,
      { requiredCapabilities: { sampling: {} } }
    ],
    [
      "unsupportedProtocolVersion",
      P.ErrorCode.McpError.unsupportedProtocolVersion("2024-01-01", ["2026-07-28"]),
      -32022,
      /2024-01-01/,
      { supported: ["2026-07-28"], requested: "2024-01-01" }
    ]
  ]
  for (const [label, error, code, message, data] of table) {
    it(label, () => {
      expect(error._tag).toBe("McpError")
      expect(error).toBeInstanceOf(Error)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(message)
      expect(error.data).toEqual(data)
      expect(error.httpStatus).toBe(P.ErrorCode.httpStatusOf(code))
      const wire = error.toJsonRpc()
      expect(wire).toEqual(
        data === undefined ? { code, message: error.message } : { code, message: error.message, data }
      )
      if (data === undefined) expect(wire).not.toHaveProperty("data")
      validateWire("Error", wire)
      expect(P.ErrorCode.McpError.fromJsonRpc(wire).toJsonRpc()).toEqual(wire)
    })
  }

  it.effect("is a yieldable tagged error", () =>
    Effect.gen(function*() {
      const code = yield* Effect.fail(P.ErrorCode.McpError.methodNotFound("x")).pipe(
        Effect.catchTag("McpError", (e) => Effect.succeed(e.code))
      )
      expect(code).toBe(-32601)
      const flipped = yield* Effect.flip(Effect.gen(function*() {
        return yield* P.ErrorCode.McpError.invalidParams("nope")
      }))
      expect(flipped.code).toBe(-32602)
    }))
})

describe("JSON-RPC envelopes", () => {
  it("success / failure build encoded responses", () => {
    expect(P.JsonRpc.success(1, { resultType: "complete" })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { resultType: "complete" }
    })
    expect(P.JsonRpc.failure("a", { code: -32602, message: "m", data: 1 })).toEqual({
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32602, message: "m", data: 1 }
    })
    expect(P.JsonRpc.failure(undefined, { code: -32700, message: "Parse error" })).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error" }
    })
  })

  it("JsonRpcMessage discriminates the four kinds", () => {
    const decode = Schema.decodeUnknownSync(P.JsonRpc.JsonRpcMessage)
    const request = decode({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: {} } })
    const notification = decode({ jsonrpc: "2.0", method: "notifications/progress" })
    const ok = decode({ jsonrpc: "2.0", id: 1, result: { resultType: "complete" } })
    const err = decode({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } })
    expect([P.JsonRpc.isRequest(request), P.JsonRpc.isNotification(request), P.JsonRpc.isResponse(request)]).toEqual([
      true,
      false,
      false
    ])
    expect([
      P.JsonRpc.isRequest(notification),
      P.JsonRpc.isNotification(notification),
      P.JsonRpc.isResponse(notification)
    ]).toEqual([
      false,
      true,
      false
    ])
    expect([P.JsonRpc.isRequest(ok), P.JsonRpc.isNotification(ok), P.JsonRpc.isResponse(ok)]).toEqual([
      false,
      false,
      true
    ])
    expect([P.JsonRpc.isRequest(err), P.JsonRpc.isNotification(err), P.JsonRpc.isResponse(err)]).toEqual([
      false,
      false,
      true
    ])
  })

  it("RequestId is a string or an integer", () => {
    expect(Schema.is(P.JsonRpc.RequestId)("x")).toBe(true)
    expect(Schema.is(P.JsonRpc.RequestId)(7)).toBe(true)
    expect(Schema.is(P.JsonRpc.RequestId)(7.5)).toBe(false)
    expect(Schema.is(P.JsonRpc.RequestId)(null)).toBe(false)
  })
})

describe("Meta", () => {
  it("has the versions and keys of the spec", () => {
    expect(P.Meta.PROTOCOL_VERSION).toBe("2026-07-28")
    expect(P.Meta.LEGACY_PROTOCOL_VERSION).toBe("2025-11-25")
    expect(P.Meta.SUPPORTED_PROTOCOL_VERSIONS[0]).toBe("2026-07-28")
    expect(P.Meta.isSupportedProtocolVersion("2026-07-28")).toBe(true)
    expect(P.Meta.isSupportedProtocolVersion("2024-11-05")).toBe(false)
    expect(P.Meta.MetaKey.protocolVersion).toBe("io.modelcontextprotocol/protocolVersion")
    expect(P.Meta.MetaKey.clientCapabilities).toBe("io.modelcontextprotocol/clientCapabilities")
    expect(P.Meta.MetaKey.clientInfo).toBe("io.modelcontextprotocol/clientInfo")
    expect(P.Meta.MetaKey.logLevel).toBe("io.modelcontextprotocol/logLevel")
    expect(P.Meta.MetaKey.serverInfo).toBe("io.modelcontextprotocol/serverInfo")
  })

  it("makeRequestMeta builds a valid RequestMetaObject", () => {
    const meta = P.Meta.makeRequestMeta({
      clientCapabilities: { elicitation: {} },
      clientInfo: { name: "c", version: "1" },
      logLevel: "debug",
      progressToken: 3
    })
    validateWire("RequestMetaObject", meta)
    expect(meta).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
      "io.modelcontextprotocol/logLevel": "debug",
      progressToken: 3
    })
  })

  it("method tables", () => {
    expect(P.Schema.INPUT_REQUIRED_METHODS).toEqual(["tools/call", "prompts/get", "resources/read"])
    expect(P.Schema.CACHEABLE_METHODS).toContain("server/discover")
    expect(P.Schema.REMOVED_METHODS).toEqual(expect.arrayContaining(["initialize", "ping", "logging/setLevel"]))
  })
})

describe("McpError.toJsonRpc: long messages", () => {
  it("a message quoting megabytes of input is cut on the wire, with its length; a short one is kept", () => {
    const huge = new McpError({ code: -32602, message: `Unknown task: ${"x".repeat(1_000_000)}` })
    const wire = huge.toJsonRpc()
    expect(wire.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_LENGTH)
    expect(wire.message.startsWith("Unknown task: xxx")).toBe(true)
    expect(wire.message.endsWith(`(${huge.message.length} characters in all)`)).toBe(true)
    validateWire("JSONRPCErrorResponse", { jsonrpc: "2.0", id: 1, error: wire })
    expect(new McpError({ code: -32602, message: "Unknown task: abc" }).toJsonRpc().message).toBe("Unknown task: abc")
    // a surrogate pair at the cut is not split
    const emoji = new McpError({ code: -32602, message: "😀".repeat(2000) }).toJsonRpc().message
    expect((emoji as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true)
  })
})
