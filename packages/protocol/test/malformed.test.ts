/**
 * (c) Malformed input fails to decode with a readable message naming what is
 * wrong and where.
 */
import { describe, expect, it } from "@effect/vitest"
import { wireErrors } from "@mrtr/test-support/wire"
import { Effect, Exit, Schema } from "effect"
import * as P from "../src/index.ts"
import { elicitRequest } from "./fixtures.ts"

const meta = P.Meta.makeRequestMeta({ clientCapabilities: {} })

const failureMessage = (schema: Schema.Codec<any, any>, input: unknown): string => {
  const result = Schema.decodeUnknownExit(schema)(input)
  if (Exit.isSuccess(result)) throw new Error(`expected a decoding failure for ${JSON.stringify(input)}`)
  try {
    Schema.decodeUnknownSync(schema)(input)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error("unreachable")
}

const cases: ReadonlyArray<
  readonly [label: string, schema: Schema.Codec<any, any>, input: unknown, expected: ReadonlyArray<string>]
> = [
  [
    "InputRequiredResult with neither inputRequests nor requestState",
    P.Schema.InputRequiredResult,
    { resultType: "input_required" },
    ["at least one of", "inputRequests", "requestState"]
  ],
  [
    "InputRequiredResult with the wrong resultType",
    P.Schema.InputRequiredResult,
    { resultType: "complete", requestState: "s" },
    ["Expected \"input_required\"", "[\"resultType\"]"]
  ],
  [
    "ElicitResult with an unknown action",
    P.Schema.ElicitResult,
    { action: "maybe" },
    ["Expected \"accept\" | \"decline\" | \"cancel\"", "[\"action\"]"]
  ],
  [
    "ElicitResult with a nested object as a value",
    P.Schema.ElicitResult,
    { action: "accept", content: { address: { city: "Paris" } } },
    ["Expected string | number | boolean | array", "[\"content\"][\"address\"]"]
  ],
  ["Tool without inputSchema", P.Schema.Tool, { name: "t" }, ["Missing key", "[\"inputSchema\"]"]],
  [
    "Tool whose inputSchema root is not an object",
    P.Schema.Tool,
    { name: "t", inputSchema: { type: "array" } },
    ["Expected \"object\"", "[\"inputSchema\"][\"type\"]"]
  ],
  ["CallToolRequestParams without _meta", P.Schema.CallToolRequestParams, { name: "t" }, [
    "Missing key",
    "[\"_meta\"]"
  ]],
  [
    "CallToolRequestParams whose _meta lacks clientCapabilities",
    P.Schema.CallToolRequestParams,
    { name: "t", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    ["Missing key", "[\"_meta\"][\"io.modelcontextprotocol/clientCapabilities\"]"]
  ],
  [
    "CallToolRequestParams whose _meta lacks protocolVersion",
    P.Schema.CallToolRequestParams,
    { name: "t", _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
    ["Missing key", "[\"_meta\"][\"io.modelcontextprotocol/protocolVersion\"]"]
  ],
  ["CallToolRequestParams with a numeric name", P.Schema.CallToolRequestParams, { name: 5, _meta: meta }, [
    "Expected string",
    "[\"name\"]"
  ]],
  [
    "CallToolRequestParams with a malformed input response",
    P.Schema.CallToolRequestParams,
    { name: "t", _meta: meta, inputResponses: { user_name: 12345 } },
    ["Expected object", "[\"inputResponses\"][\"user_name\"]"]
  ],
  ["CallToolResult with string content", P.Schema.CallToolResult, { content: "hi" }, [
    "Expected array",
    "[\"content\"]"
  ]],
  [
    "CallToolResult with a text block missing text",
    P.Schema.CallToolResult,
    { content: [{ type: "text" }] },
    ["Missing key", "[\"content\"][0][\"text\"]"]
  ],
  [
    "CallToolResult with an unrecognised resultType",
    P.Schema.CallToolResult,
    { resultType: "task", content: [] },
    ["Expected \"complete\"", "[\"resultType\"]"]
  ],
  [
    "ListToolsResult with an unknown cacheScope",
    P.Schema.ListToolsResult,
    { tools: [], cacheScope: "shared" },
    ["Expected \"public\" | \"private\"", "[\"cacheScope\"]"]
  ],
  ["ListToolsResult with a fractional ttlMs", P.Schema.ListToolsResult, { tools: [], ttlMs: 1.5 }, [
    "Expected an integer",
    "[\"ttlMs\"]"
  ]],
  ["ContentBlock of an unknown type", P.Schema.ContentBlock, { type: "video" }, [
    "\"type\": \"text\"",
    "\"type\": \"resource\""
  ]],
  ["InputRequest with a method MRTR does not allow", P.Schema.InputRequest, { method: "ping", params: {} }, [
    "\"method\": \"elicitation/create\"",
    "\"method\": \"roots/list\""
  ]],
  [
    "URL elicitation without url",
    P.Schema.ElicitRequest,
    { method: "elicitation/create", params: { mode: "url", message: "Sign in" } },
    ["Missing key", "[\"params\"][\"url\"]"]
  ],
  ["Sampling params with a string maxTokens", P.Schema.CreateMessageRequestParams, { messages: [], maxTokens: "100" }, [
    "Expected number",
    "[\"maxTokens\"]"
  ]],
  ["ModelPreferences priority out of range", P.Schema.ModelPreferences, { costPriority: 2 }, [
    "between 0 and 1",
    "[\"costPriority\"]"
  ]],
  [
    "RequestMeta with an unknown logLevel",
    P.Meta.RequestMeta,
    {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/logLevel": "verbose"
    },
    ["Expected \"debug\"", "[\"io.modelcontextprotocol/logLevel\"]"]
  ],
  [
    "CompleteResult with more than 100 values",
    P.Schema.CompleteResult,
    { completion: { values: Array.from({ length: 101 }, (_, i) => `v${i}`) } },
    ["at most 100", "[\"completion\"][\"values\"]"]
  ],
  [
    "LoggingMessageNotificationParams without data",
    P.Schema.LoggingMessageNotificationParams,
    { level: "info" },
    ["Missing key", "[\"data\"]"]
  ],
  ["JSON-RPC request with version 1.0", P.JsonRpc.JsonRpcRequest, { jsonrpc: "1.0", id: 1, method: "x" }, [
    "Expected \"2.0\"",
    "[\"jsonrpc\"]"
  ]],
  ["JSON-RPC request with a fractional id", P.JsonRpc.JsonRpcMessage, { jsonrpc: "2.0", id: 1.5, method: "x" }, [
    "Expected an integer",
    "[\"id\"]"
  ]],
  ["a value that is no JSON-RPC message", P.JsonRpc.JsonRpcMessage, { foo: 1 }, ["\"jsonrpc\": \"2.0\""]]
]

describe("malformed inputs fail with readable messages", () => {
  for (const [label, schema, input, expected] of cases) {
    it(label, () => {
      const message = failureMessage(schema, input)
      for (const fragment of expected) expect(message).toContain(fragment)
    })
  }

  it.effect("decodeUnknownEffect fails with a SchemaError carrying the same message", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Schema.decodeUnknownEffect(P.Schema.ElicitResult)({ action: "maybe" })
      )
      expect(error.message).toContain("Expected \"accept\" | \"decline\" | \"cancel\"")
    }))

  it("the official JSON schema does not enforce the at-least-one rule of InputRequiredResult, but we do", () => {
    expect(wireErrors("InputRequiredResult", { resultType: "input_required" })).toBeUndefined()
    expect(Schema.is(P.Schema.InputRequiredResult)({ resultType: "input_required" })).toBe(false)
  })

  it("an empty inputRequests counts as present when decoding (only the constructor refuses it)", () => {
    expect(Schema.decodeUnknownSync(P.Schema.InputRequiredResult)({ resultType: "input_required", inputRequests: {} }))
      .toEqual({ resultType: "input_required", inputRequests: {} })
  })

  it("encoding also rejects an InputRequiredResult with neither field", () => {
    expect(() => Schema.encodeUnknownSync(P.Schema.InputRequiredResult)({ resultType: "input_required" })).toThrow(
      /at least one of/
    )
  })
})

describe("makeInputRequiredResult", () => {
  it("builds results with inputRequests, requestState, or both", () => {
    expect(P.Schema.makeInputRequiredResult({ requestState: "s" })).toEqual({
      resultType: "input_required",
      requestState: "s"
    })
    expect(P.Schema.makeInputRequiredResult({ inputRequests: { a: elicitRequest } })).toEqual({
      resultType: "input_required",
      inputRequests: { a: elicitRequest }
    })
    expect(P.Schema.makeInputRequiredResult({ inputRequests: {}, requestState: "s" })).toEqual({
      resultType: "input_required",
      inputRequests: {},
      requestState: "s"
    })
  })

  it("refuses an empty inputRequests without requestState", () => {
    expect(() => P.Schema.makeInputRequiredResult({ inputRequests: {} })).toThrow(
      /non-empty inputRequests or a requestState/
    )
  })

  it("does not type-check without either field", () => {
    // @ts-expect-error neither inputRequests nor requestState
    expect(() => P.Schema.makeInputRequiredResult({})).toThrow(TypeError)
    // @ts-expect-error both explicitly undefined
    expect(() => P.Schema.makeInputRequiredResult({ inputRequests: undefined, requestState: undefined })).toThrow(
      TypeError
    )
  })
})
