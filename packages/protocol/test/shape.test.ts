/**
 * Field names and optionality of the Effect Schemas (decoded side) compared
 * with the official 2026-07-28 `$defs`: same property names, same required set.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as P from "../src/index.ts"
import { schemaJson } from "@mrtr/test-support/wire"

type JsonSchemaObject = {
  readonly properties?: Record<string, unknown>
  readonly required?: ReadonlyArray<string>
}

const pairs: ReadonlyArray<readonly [string, Schema.Top]> = [
  ["Implementation", P.Implementation],
  ["Icon", P.Icon],
  ["ClientCapabilities", P.ClientCapabilities],
  ["ServerCapabilities", P.ServerCapabilities],
  ["Annotations", P.Annotations],
  ["TextContent", P.TextContent],
  ["ImageContent", P.ImageContent],
  ["AudioContent", P.AudioContent],
  ["ResourceLink", P.ResourceLink],
  ["EmbeddedResource", P.EmbeddedResource],
  ["TextResourceContents", P.TextResourceContents],
  ["BlobResourceContents", P.BlobResourceContents],
  ["ToolUseContent", P.ToolUseContent],
  ["ToolResultContent", P.ToolResultContent],
  ["ToolAnnotations", P.ToolAnnotations],
  ["Tool", P.Tool],
  ["ListToolsResult", P.ListToolsResult],
  ["CallToolRequestParams", P.CallToolRequestParams],
  ["CallToolResult", P.CallToolResult],
  ["PromptArgument", P.PromptArgument],
  ["Prompt", P.Prompt],
  ["PromptMessage", P.PromptMessage],
  ["ListPromptsResult", P.ListPromptsResult],
  ["GetPromptRequestParams", P.GetPromptRequestParams],
  ["GetPromptResult", P.GetPromptResult],
  ["Resource", P.Resource],
  ["ResourceTemplate", P.ResourceTemplate],
  ["ListResourcesResult", P.ListResourcesResult],
  ["ListResourceTemplatesResult", P.ListResourceTemplatesResult],
  ["ReadResourceRequestParams", P.ReadResourceRequestParams],
  ["ReadResourceResult", P.ReadResourceResult],
  ["PaginatedRequestParams", P.PaginatedRequestParams],
  ["RequestParams", P.RequestParams],
  ["DiscoverResult", P.DiscoverResult],
  ["PromptReference", P.PromptReference],
  ["ResourceTemplateReference", P.ResourceTemplateReference],
  ["CompleteRequestParams", P.CompleteRequestParams],
  ["CompleteResult", P.CompleteResult],
  ["StringSchema", P.StringSchema],
  ["NumberSchema", P.NumberSchema],
  ["BooleanSchema", P.BooleanSchema],
  ["UntitledSingleSelectEnumSchema", P.UntitledSingleSelectEnumSchema],
  ["TitledSingleSelectEnumSchema", P.TitledSingleSelectEnumSchema],
  ["UntitledMultiSelectEnumSchema", P.UntitledMultiSelectEnumSchema],
  ["TitledMultiSelectEnumSchema", P.TitledMultiSelectEnumSchema],
  ["LegacyTitledEnumSchema", P.LegacyTitledEnumSchema],
  ["ElicitRequestFormParams", P.ElicitRequestFormParams],
  ["ElicitRequestURLParams", P.ElicitRequestURLParams],
  ["ElicitRequest", P.ElicitRequest],
  ["ElicitResult", P.ElicitResult],
  ["SamplingMessage", P.SamplingMessage],
  ["ModelHint", P.ModelHint],
  ["ModelPreferences", P.ModelPreferences],
  ["ToolChoice", P.ToolChoice],
  ["CreateMessageRequestParams", P.CreateMessageRequestParams],
  ["CreateMessageRequest", P.CreateMessageRequest],
  ["CreateMessageResult", P.CreateMessageResult],
  ["Root", P.Root],
  ["ListRootsRequest", P.ListRootsRequest],
  ["ListRootsResult", P.ListRootsResult],
  ["InputResponseRequestParams", P.InputResponseRequestParams],
  ["InputRequiredResult", P.InputRequiredResult],
  ["Result", P.Result],
  ["SubscriptionFilter", P.SubscriptionFilter],
  ["SubscriptionsListenRequestParams", P.SubscriptionsListenRequestParams],
  ["SubscriptionsListenResult", P.SubscriptionsListenResult],
  ["SubscriptionsListenResultMetaObject", P.SubscriptionsListenResultMeta],
  ["SubscriptionsAcknowledgedNotificationParams", P.SubscriptionsAcknowledgedNotificationParams],
  ["NotificationParams", P.NotificationParams],
  ["LoggingMessageNotificationParams", P.LoggingMessageNotificationParams],
  ["ProgressNotificationParams", P.ProgressNotificationParams],
  ["CancelledNotificationParams", P.CancelledNotificationParams],
  ["ResourceUpdatedNotificationParams", P.ResourceUpdatedNotificationParams],
  ["ToolListChangedNotification", P.ToolListChangedNotification],
  ["PromptListChangedNotification", P.PromptListChangedNotification],
  ["ResourceListChangedNotification", P.ResourceListChangedNotification],
  ["ResourceUpdatedNotification", P.ResourceUpdatedNotification],
  ["SubscriptionsAcknowledgedNotification", P.SubscriptionsAcknowledgedNotification],
  ["LoggingMessageNotification", P.LoggingMessageNotification],
  ["ProgressNotification", P.ProgressNotification],
  ["CancelledNotification", P.CancelledNotification],
  ["DiscoverRequest", P.DiscoverRequest],
  ["ListToolsRequest", P.ListToolsRequest],
  ["CallToolRequest", P.CallToolRequest],
  ["ListPromptsRequest", P.ListPromptsRequest],
  ["GetPromptRequest", P.GetPromptRequest],
  ["ListResourcesRequest", P.ListResourcesRequest],
  ["ListResourceTemplatesRequest", P.ListResourceTemplatesRequest],
  ["ReadResourceRequest", P.ReadResourceRequest],
  ["CompleteRequest", P.CompleteRequest],
  ["SubscriptionsListenRequest", P.SubscriptionsListenRequest],
  ["RequestMetaObject", P.RequestMeta],
  ["ResultMetaObject", P.ResultMeta],
  ["NotificationMetaObject", P.NotificationMeta],
  ["JSONRPCRequest", P.JsonRpcRequest],
  ["JSONRPCResultResponse", P.JsonRpcSuccess],
  ["JSONRPCErrorResponse", P.JsonRpcErrorResponse],
  ["Error", P.JsonRpcErrorObject]
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
    const ours = shapeOf(P.JsonRpcNotification)
    expect(sorted(Object.keys(ours.properties ?? {}))).toEqual(sorted([...Object.keys(official.properties ?? {}), "id"]))
    expect(sorted(ours.required)).toEqual(sorted(official.required))
  })
})
