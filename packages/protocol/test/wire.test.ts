/**
 * (a) Every message kind, encoded with the Effect Schemas, validates against
 * the corresponding `$defs` entry of the official 2026-07-28 JSON Schema, and
 * decodes back to the same value. Also full JSON-RPC responses.
 */
import { describe, expect, it } from "@effect/vitest"
import { schemaJson, validateWire, wireErrors } from "@mrtr/test-support/wire"
import { Schema } from "effect"
import * as P from "../src/index.ts"
import * as F from "./fixtures.ts"

const encode = <S extends Schema.Codec<any, any>>(schema: S, value: S["Type"]): unknown =>
  JSON.parse(JSON.stringify(Schema.encodeSync(schema)(value)))

describe("wire: every sample encodes to a valid $defs instance and round-trips", () => {
  for (const sample of F.allSamples) {
    it(`${sample.label} → ${sample.def}`, () => {
      const encoded = JSON.parse(JSON.stringify(Schema.encodeUnknownSync(sample.schema)(sample.value)))
      validateWire(sample.def, encoded)
      expect(Schema.decodeUnknownSync(sample.schema)(encoded)).toEqual(sample.value)
    })
  }

  it("covers every schema the brief names", () => {
    const covered = new Set(F.allSamples.map((s) => s.def))
    for (
      const def of [
        "Implementation",
        "ClientCapabilities",
        "ServerCapabilities",
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
        "ContentBlock",
        "TextResourceContents",
        "BlobResourceContents",
        "Annotations",
        "ToolAnnotations",
        "Tool",
        "ListToolsResult",
        "CallToolRequestParams",
        "CallToolResult",
        "PromptArgument",
        "Prompt",
        "PromptMessage",
        "ListPromptsResult",
        "GetPromptRequestParams",
        "GetPromptResult",
        "Resource",
        "ResourceTemplate",
        "ListResourcesResult",
        "ListResourceTemplatesResult",
        "ReadResourceRequestParams",
        "ReadResourceResult",
        "PaginatedRequestParams",
        "DiscoverResult",
        "CompleteRequestParams",
        "CompleteResult",
        "StringSchema",
        "NumberSchema",
        "BooleanSchema",
        "UntitledSingleSelectEnumSchema",
        "TitledSingleSelectEnumSchema",
        "UntitledMultiSelectEnumSchema",
        "TitledMultiSelectEnumSchema",
        "LegacyTitledEnumSchema",
        "PrimitiveSchemaDefinition",
        "ElicitRequestFormParams",
        "ElicitRequestURLParams",
        "ElicitRequestParams",
        "ElicitRequest",
        "ElicitResult",
        "SamplingMessage",
        "ModelPreferences",
        "CreateMessageRequestParams",
        "CreateMessageRequest",
        "CreateMessageResult",
        "Root",
        "ListRootsRequest",
        "ListRootsResult",
        "InputRequest",
        "InputRequests",
        "InputResponse",
        "InputResponses",
        "InputResponseRequestParams",
        "InputRequiredResult",
        "LoggingMessageNotificationParams",
        "ProgressNotificationParams",
        "SubscriptionsListenRequestParams",
        "ToolListChangedNotification",
        "PromptListChangedNotification",
        "ResourceListChangedNotification",
        "RequestMetaObject",
        "LoggingLevel"
      ]
    ) {
      expect(covered.has(def), def).toBe(true)
    }
  })
})

describe("wire: full JSON-RPC responses", () => {
  const respond = (id: P.JsonRpc.RequestId, result: unknown) => P.JsonRpc.success(id, result as object)

  it("JSONRPCResultResponse / CallToolResultResponse wrapping a CallToolResult", () => {
    const message = respond(1, encode(P.Schema.CallToolResult, F.callToolResult))
    validateWire("JSONRPCResultResponse", message)
    validateWire("CallToolResultResponse", message)
    validateWire("JSONRPCResponse", message)
    validateWire("JSONRPCMessage", message)
    expect(Schema.decodeUnknownSync(P.JsonRpc.JsonRpcSuccess)(message).id).toBe(1)
  })

  it("CallToolResultResponse / GetPromptResultResponse / ReadResourceResultResponse wrapping InputRequiredResults", () => {
    for (const irr of [F.irrBoth, F.irrRequestsOnly, F.irrStateOnly]) {
      const result = encode(P.Schema.InputRequiredResult, irr)
      for (const def of ["CallToolResultResponse", "GetPromptResultResponse", "ReadResourceResultResponse"]) {
        validateWire(def, respond("r-1", result))
      }
      validateWire("ServerResult", result)
      expect(Schema.decodeUnknownSync(P.Schema.CallToolResultOrInputRequired)(result)).toEqual(irr)
      expect(Schema.decodeUnknownSync(P.Schema.GetPromptResultOrInputRequired)(result)).toEqual(irr)
      expect(Schema.decodeUnknownSync(P.Schema.ReadResourceResultOrInputRequired)(result)).toEqual(irr)
    }
  })

  it("the union decoders pick the complete result when resultType is complete", () => {
    expect(
      Schema.decodeUnknownSync(P.Schema.CallToolResultOrInputRequired)(
        encode(P.Schema.CallToolResult, F.callToolResult)
      )
    ).toEqual(
      F.callToolResult
    )
    expect(
      Schema.decodeUnknownSync(P.Schema.GetPromptResultOrInputRequired)(
        encode(P.Schema.GetPromptResult, F.getPromptResult)
      )
    )
      .toEqual(F.getPromptResult)
    expect(
      Schema.decodeUnknownSync(P.Schema.ReadResourceResultOrInputRequired)(
        encode(P.Schema.ReadResourceResult, F.readResourceResult)
      )
    ).toEqual(F.readResourceResult)
  })

  it("per-method result responses", () => {
    validateWire("DiscoverResultResponse", respond(1, encode(P.Schema.DiscoverResult, F.discoverResult)))
    validateWire("ListToolsResultResponse", respond(2, encode(P.Schema.ListToolsResult, F.listTools)))
    validateWire("GetPromptResultResponse", respond(3, encode(P.Schema.GetPromptResult, F.getPromptResult)))
    validateWire("ReadResourceResultResponse", respond(4, encode(P.Schema.ReadResourceResult, F.readResourceResult)))
    validateWire("CompleteResultResponse", respond(5, encode(P.Schema.CompleteResult, F.completeResult)))
    validateWire(
      "SubscriptionsListenResultResponse",
      respond(6, encode(P.Schema.SubscriptionsListenResult, F.listenResult))
    )
    for (
      const [schema, value] of [
        [P.Schema.DiscoverResult, F.discoverResult],
        [P.Schema.ListToolsResult, F.listTools],
        [P.Schema.ReadResourceResult, F.readResourceResult],
        [P.Schema.CallToolResult, F.callToolResult]
      ] as const
    ) {
      validateWire("ServerResult", encode(schema as Schema.Codec<any, any>, value))
    }
  })

  it("error responses built with failure() and McpError", () => {
    const cases: ReadonlyArray<readonly [string, P.JsonRpc.JsonRpcErrorResponse]> = [
      ["JSONRPCErrorResponse", P.JsonRpc.failure(7, P.ErrorCode.McpError.methodNotFound("initialize"))],
      ["JSONRPCErrorResponse", P.JsonRpc.failure(undefined, P.ErrorCode.McpError.parseError())],
      ["JSONRPCErrorResponse", P.JsonRpc.failure(null, { code: -32600, message: "Invalid Request" })],
      ["HeaderMismatchError", P.JsonRpc.failure(1, P.ErrorCode.McpError.headerMismatch("Mcp-Name mismatch"))],
      [
        "MissingRequiredClientCapabilityError",
        P.JsonRpc.failure(2, P.ErrorCode.McpError.missingRequiredClientCapability({ elicitation: {} }))
      ],
      [
        "UnsupportedProtocolVersionError",
        P.JsonRpc.failure(
          3,
          P.ErrorCode.McpError.unsupportedProtocolVersion("1999-01-01", P.Meta.SUPPORTED_PROTOCOL_VERSIONS)
        )
      ]
    ]
    for (const [def, message] of cases) {
      validateWire(def, message)
      validateWire("JSONRPCMessage", message)
      const decoded = Schema.decodeUnknownSync(P.JsonRpc.JsonRpcErrorResponse)(message)
      expect(Schema.encodeSync(P.JsonRpc.JsonRpcErrorResponse)(decoded)).toEqual(message)
    }
    expect(P.JsonRpc.failure(undefined, P.ErrorCode.McpError.parseError())).not.toHaveProperty("id")
    // A plain -32602 is not a HeaderMismatchError.
    expect(wireErrors("HeaderMismatchError", P.JsonRpc.failure(1, P.ErrorCode.McpError.invalidParams("x"))))
      .toBeDefined()
  })

  it("the cacheable results carry ttlMs and cacheScope on the wire", () => {
    for (const def of ["DiscoverResult", "ListToolsResult", "ReadResourceResult"]) {
      const required = (schemaJson.$defs[def] as { required: Array<string> }).required
      expect(required).toEqual(expect.arrayContaining(["ttlMs", "cacheScope", "resultType"]))
    }
    const encoded = encode(P.Schema.ListToolsResult, F.listTools) as Record<string, unknown>
    expect(encoded.ttlMs).toBe(60_000)
    expect(encoded.cacheScope).toBe("public")
    expect(encoded.resultType).toBe("complete")
  })
})
