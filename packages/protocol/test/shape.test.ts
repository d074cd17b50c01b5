/**
 * Field names and optionality of the Effect Schemas (decoded side) compared
 * with the official 2026-07-28 `$defs`: same property names, same required set.
 */
import { describe, expect, it } from "@effect/vitest"
import { schemaJson } from "@mrtr/test-support/wire"
import { Schema } from "effect"
import * as P from "../src/index.ts"

type JsonSchemaObject = {
  readonly properties?: Record<string, unknown>
  readonly required?: ReadonlyArray<string>
}

const pairs: ReadonlyArray<readonly [string, Schema.Top]> = [
  ["Implementation", P.Schema.Implementation],
  ["Icon", P.Schema.Icon],
  ["ClientCapabilities", P.Schema.ClientCapabilities],
  ["ServerCapabilities", P.Schema.ServerCapabilities],
  ["Annotations", P.Schema.Annotations],
  ["TextContent", P.Schema.TextContent],
  ["ImageContent", P.Schema.ImageContent],
  ["AudioContent", P.Schema.AudioContent],
  ["ResourceLink", P.Schema.ResourceLink],
  ["EmbeddedResource", P.Schema.EmbeddedResource],
  ["TextResourceContents", P.Schema.TextResourceContents],
  ["BlobResourceContents", P.Schema.BlobResourceContents],
  ["ToolUseContent", P.Schema.ToolUseContent],
  ["ToolResultContent", P.Schema.ToolResultContent],
  ["ToolAnnotations", P.Schema.ToolAnnotations],
  ["Tool", P.Schema.Tool],
  ["ListToolsResult", P.Schema.ListToolsResult],
  ["CallToolRequestParams", P.Schema.CallToolRequestParams],
  ["CallToolResult", P.Schema.CallToolResult],
  ["PromptArgument", P.Schema.PromptArgument],
  ["Prompt", P.Schema.Prompt],
  ["PromptMessage", P.Schema.PromptMessage],
  ["ListPromptsResult", P.Schema.ListPromptsResult],
  ["GetPromptRequestParams", P.Schema.GetPromptRequestParams],
  ["GetPromptResult", P.Schema.GetPromptResult],
  ["Resource", P.Schema.Resource],
  ["ResourceTemplate", P.Schema.ResourceTemplate],
  ["ListResourcesResult", P.Schema.ListResourcesResult],
  ["ListResourceTemplatesResult", P.Schema.ListResourceTemplatesResult],
  ["ReadResourceRequestParams", P.Schema.ReadResourceRequestParams],
  ["ReadResourceResult", P.Schema.ReadResourceResult],
  ["PaginatedRequestParams", P.Schema.PaginatedRequestParams],
  ["RequestParams", P.Schema.RequestParams],
  ["DiscoverResult", P.Schema.DiscoverResult],
  ["PromptReference", P.Schema.PromptReference],
  ["ResourceTemplateReference", P.Schema.ResourceTemplateReference],
  ["CompleteRequestParams", P.Schema.CompleteRequestParams],
  ["CompleteResult", P.Schema.CompleteResult],
  ["StringSchema", P.Schema.StringSchema],
  ["NumberSchema", P.Schema.NumberSchema],
  ["BooleanSchema", P.Schema.BooleanSchema],
  ["UntitledSingleSelectEnumSchema", P.Schema.UntitledSingleSelectEnumSchema],
  ["TitledSingleSelectEnumSchema", P.Schema.TitledSingleSelectEnumSchema],
  ["UntitledMultiSelectEnumSchema", P.Schema.UntitledMultiSelectEnumSchema],
  ["TitledMultiSelectEnumSchema", P.Schema.TitledMultiSelectEnumSchema],
  ["LegacyTitledEnumSchema", P.Schema.LegacyTitledEnumSchema],
  ["ElicitRequestFormParams", P.Schema.ElicitRequestFormParams],
  ["ElicitRequestURLParams", P.Schema.ElicitRequestURLParams],
  ["ElicitRequest", P.Schema.ElicitRequest],
  ["ElicitResult", P.Schema.ElicitResult],
  ["SamplingMessage", P.Schema.SamplingMessage],
  ["ModelHint", P.Schema.ModelHint],
  ["ModelPreferences", P.Schema.ModelPreferences],
  ["ToolChoice", P.Schema.ToolChoice],
  ["CreateMessageRequestParams", P.Schema.CreateMessageRequestParams],
  ["CreateMessageRequest", P.Schema.CreateMessageRequest],
  ["CreateMessageResult", P.Schema.CreateMessageResult],
  ["Root", P.Schema.Root],
  ["ListRootsRequest", P.Schema.ListRootsRequest],
  ["ListRootsResult", P.Schema.ListRootsResult],
  ["InputResponseRequestParams", P.Schema.InputResponseRequestParams],
  ["InputRequiredResult", P.Schema.InputRequiredResult],
  ["Result", P.Schema.Result],
  ["SubscriptionFilter", P.Schema.SubscriptionFilter],
  ["SubscriptionsListenRequestParams", P.Schema.SubscriptionsListenRequestParams],
  ["SubscriptionsListenResult", P.Schema.SubscriptionsListenResult],
  ["SubscriptionsListenResultMetaObject", P.Schema.SubscriptionsListenResultMeta],
  ["SubscriptionsAcknowledgedNotificationParams", P.Schema.SubscriptionsAcknowledgedNotificationParams],
  ["NotificationParams", P.Schema.NotificationParams],
  ["LoggingMessageNotificationParams", P.Schema.LoggingMessageNotificationParams],
  ["ProgressNotificationParams", P.Schema.ProgressNotificationParams],
  ["CancelledNotificationParams", P.Schema.CancelledNotificationParams],
  ["ResourceUpdatedNotificationParams", P.Schema.ResourceUpdatedNotificationParams],
  ["ToolListChangedNotification", P.Schema.ToolListChangedNotification],
  ["PromptListChangedNotification", P.Schema.PromptListChangedNotification],
  ["ResourceListChangedNotification", P.Schema.ResourceListChangedNotification],
  ["ResourceUpdatedNotification", P.Schema.ResourceUpdatedNotification],
  ["SubscriptionsAcknowledgedNotification", P.Schema.SubscriptionsAcknowledgedNotification],
  ["LoggingMessageNotification", P.Schema.LoggingMessageNotification],
  ["ProgressNotification", P.Schema.ProgressNotification],
  ["CancelledNotification", P.Schema.CancelledNotification],
  ["DiscoverRequest", P.Schema.DiscoverRequest],
  ["ListToolsRequest", P.Schema.ListToolsRequest],
  ["CallToolRequest", P.Schema.CallToolRequest],
  ["ListPromptsRequest", P.Schema.ListPromptsRequest],
  ["GetPromptRequest", P.Schema.GetPromptRequest],
  ["ListResourcesRequest", P.Schema.ListResourcesRequest],
  ["ListResourceTemplatesRequest", P.Schema.ListResourceTemplatesRequest],
  ["ReadResourceRequest", P.Schema.ReadResourceRequest],
  ["CompleteRequest", P.Schema.CompleteRequest],
  ["SubscriptionsListenRequest", P.Schema.SubscriptionsListenRequest],
  ["RequestMetaObject", P.Meta.RequestMeta],
  ["ResultMetaObject", P.Meta.ResultMeta],
  ["NotificationMetaObject", P.Meta.NotificationMeta],
  ["JSONRPCRequest", P.JsonRpc.JsonRpcRequest],
  ["JSONRPCResultResponse", P.JsonRpc.JsonRpcSuccess],
  ["JSONRPCErrorResponse", P.JsonRpc.JsonRpcErrorResponse],
  ["Error", P.JsonRpc.JsonRpcErrorObject]
]

const shapeOf = (schema: Schema.Top): JsonSchemaObject =>
  Schema.toJsonSchemaDocument(Schema.toType(schema)).schema as JsonSchemaObject

const sorted = (xs: Iterable<string> | undefined) => [...(xs ?? [])].sort()

describe("shape: property names and required keys match schema-2026-07-28.json", () => {
  for (const [def, schema] of pairs) {
    it(def, () => {
      const official = schemaJson.$defs[def] as JsonSchemaObject
      const ours = shapeOf(schema)
      expect(sorted(Object.keys(ours.properties ?? {}))).toEqual(sorted(Object.keys(official.properties ?? {})))
      expect(sorted(ours.required)).toEqual(sorted(official.required))
    })
  }

  it("JSONRPCNotification: same members, plus a forbidden `id`", () => {
    const official = schemaJson.$defs.JSONRPCNotification as JsonSchemaObject
    const ours = shapeOf(P.JsonRpc.JsonRpcNotification)
    expect(sorted(Object.keys(ours.properties ?? {}))).toEqual(
      sorted([...Object.keys(official.properties ?? {}), "id"])
    )
    expect(sorted(ours.required)).toEqual(sorted(official.required))
  })
})
