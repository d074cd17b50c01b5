/**
 * The content fixtures of the suite's reference everything-server: tools that
 * return each content type, progress and errors; static and templated
 * resources; prompts with arguments, embedded resources and images; argument
 * completions. Used by `tools-*`, `resources-*`, `prompts-*`,
 * `completion-complete` and `caching`.
 */
import { Elicitation, Sampling } from "@mrtr/core"
import { Prompt, RequestContext, Resource, Tool } from "@mrtr/server"
import { Effect, Schema } from "effect"
import { sampledText } from "./mrtr.ts"

/** A 1x1 red PNG. */
export const TEST_IMAGE_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/** A minimal WAV file. */
export const TEST_AUDIO_BASE64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

// -- Tools ------------------------------------------------------------------

const simpleText = Tool.make("test_simple_text", {
  description: "Tests simple text content response",
  handler: () => Effect.succeed("This is a simple text response for testing.")
})

const imageContent = Tool.make("test_image_content", {
  description: "Tests image content response",
  handler: () => Effect.succeed([{ type: "image" as const, data: TEST_IMAGE_BASE64, mimeType: "image/png" }])
})

const audioContent = Tool.make("test_audio_content", {
  description: "Tests audio content response",
  handler: () => Effect.succeed([{ type: "audio" as const, data: TEST_AUDIO_BASE64, mimeType: "audio/wav" }])
})

const embeddedResource = Tool.make("test_embedded_resource", {
  description: "Tests embedded resource content response",
  handler: () =>
    Effect.succeed([{
      type: "resource" as const,
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content."
      }
    }])
})

const multipleContentTypes = Tool.make("test_multiple_content_types", {
  description: "Tests response with multiple content types (text, image, resource)",
  handler: () =>
    Effect.succeed([
      { type: "text" as const, text: "Multiple content types test:" },
      { type: "image" as const, data: TEST_IMAGE_BASE64, mimeType: "image/png" },
      {
        type: "resource" as const,
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 })
        }
      }
    ])
})

const toolWithLogging = Tool.make("test_tool_with_logging", {
  description: "Tests tool that emits log messages during execution (when the request sets a log level)",
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.log("info", "Tool execution started", "conformance-server")
      yield* Effect.sleep("50 millis")
      yield* RequestContext.log("info", "Tool processing data", "conformance-server")
      yield* Effect.sleep("50 millis")
      yield* RequestContext.log("info", "Tool execution completed", "conformance-server")
      return "Tool with logging executed successfully"
    })
})

const toolWithProgress = Tool.make("test_tool_with_progress", {
  description: "Tests tool that reports progress notifications",
  handler: () =>
    Effect.gen(function*() {
      for (const progress of [0, 50, 100]) {
        if (progress > 0) yield* Effect.sleep("50 millis")
        yield* RequestContext.progress(progress, { total: 100, message: `Completed step ${progress} of 100` })
      }
      const request = yield* RequestContext.McpRequest
      return String(request.progressToken ?? "no progress token")
    })
})

const errorHandling = Tool.make("test_error_handling", {
  description: "Tests error response handling",
  handler: () => Effect.fail(new Error("This tool intentionally returns an error for testing"))
})

/** The 2025-era sampling fixture, written as an MRTR ask. */
const samplingTool = Tool.make("test_sampling", {
  description: "Tests sampling (LLM completion request) as an MRTR ask",
  parameters: Schema.Struct({ prompt: Schema.String.annotate({ description: "The prompt to send to the LLM" }) }),
  handler: ({ prompt }) =>
    Sampling.createMessage({
      key: "sampling",
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100
    }).pipe(Effect.map((result) => `LLM response: ${sampledText(result)}`))
})

/** The 2025-era elicitation fixture, written as an MRTR ask. */
const elicitationTool = Tool.make("test_elicitation", {
  description: "Tests elicitation (user input request) as an MRTR ask",
  parameters: Schema.Struct({ message: Schema.String.annotate({ description: "The message to show the user" }) }),
  handler: ({ message }) =>
    Elicitation.form({
      key: "elicitation",
      message,
      schema: Schema.Struct({
        username: Schema.String.annotate({ description: "User's response" }),
        email: Schema.String.annotate({ description: "User's email address" })
      })
    }).pipe(
      Effect.map((content) => `User response: action=accept, content=${JSON.stringify(content)}`),
      Effect.catchTag("ElicitationDeclined", () => Effect.succeed("User response: action=decline")),
      Effect.catchTag("ElicitationCancelled", () => Effect.succeed("User response: action=cancel"))
    )
})

/** SEP-1034: every primitive field type with a default, all optional. */
const sep1034Defaults = Tool.make("test_elicitation_sep1034_defaults", {
  description: "Tests elicitation with default values for every primitive type (SEP-1034)",
  handler: () =>
    Elicitation.form({
      key: "defaults",
      message: "Please review and update the form fields with defaults",
      schema: Schema.Struct({
        name: Schema.optionalKey(Schema.String.annotate({ description: "User name", default: "John Doe" })),
        age: Schema.optionalKey(Schema.Int.annotate({ description: "User age", default: 30 })),
        score: Schema.optionalKey(Schema.Finite.annotate({ description: "User score", default: 95.5 })),
        status: Schema.optionalKey(
          Schema.Literals(["active", "inactive", "pending"]).annotate({ description: "User status", default: "active" })
        ),
        verified: Schema.optionalKey(Schema.Boolean.annotate({ description: "Verification status", default: true }))
      })
    }).pipe(
      Effect.map((content) => `Elicitation completed: action=accept, content=${JSON.stringify(content)}`),
      Effect.catchTag("ElicitationDeclined", () => Effect.succeed("Elicitation completed: action=decline")),
      Effect.catchTag("ElicitationCancelled", () => Effect.succeed("Elicitation completed: action=cancel"))
    )
})

/**
 * SEP-1330: the five enum shapes. The legacy `enumNames` form has no Effect
 * Schema counterpart, so the form is given as its `requestedSchema` plus the
 * Schema that decodes the answer.
 */
const sep1330Form = {
  requestedSchema: {
    type: "object" as const,
    properties: {
      untitledSingle: { type: "string" as const, description: "Pick one", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string" as const,
        description: "Pick one (titled)",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" }
        ]
      },
      legacyEnum: {
        type: "string" as const,
        description: "Pick one (legacy titles)",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"]
      },
      untitledMulti: {
        type: "array" as const,
        description: "Pick several",
        items: { type: "string" as const, enum: ["option1", "option2", "option3"] }
      },
      titledMulti: {
        type: "array" as const,
        description: "Pick several (titled)",
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" }
          ]
        }
      }
    }
  },
  schema: Schema.Struct({
    untitledSingle: Schema.optionalKey(Schema.Literals(["option1", "option2", "option3"])),
    titledSingle: Schema.optionalKey(Schema.Literals(["value1", "value2", "value3"])),
    legacyEnum: Schema.optionalKey(Schema.Literals(["opt1", "opt2", "opt3"])),
    untitledMulti: Schema.optionalKey(Schema.Array(Schema.Literals(["option1", "option2", "option3"]))),
    titledMulti: Schema.optionalKey(Schema.Array(Schema.Literals(["value1", "value2", "value3"])))
  })
}

const sep1330Enums = Tool.make("test_elicitation_sep1330_enums", {
  description: "Tests elicitation with the five enum schema shapes (SEP-1330)",
  handler: () =>
    Elicitation.form({ key: "enums", message: "Please pick from the enum fields", schema: sep1330Form as any }).pipe(
      Effect.map((content) => `Elicitation completed: action=accept, content=${JSON.stringify(content)}`),
      Effect.catchTag("ElicitationDeclined", () => Effect.succeed("Elicitation completed: action=decline")),
      Effect.catchTag("ElicitationCancelled", () => Effect.succeed("Elicitation completed: action=cancel"))
    )
})

/** SEP-1699: closes its SSE stream mid-call; the result arrives on the GET that resumes it with Last-Event-ID. */
const reconnection = Tool.make("test_reconnection", {
  description: "Tests SSE polling: closes the stream mid-call, the result follows on reconnection (SEP-1699)",
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.closeStream
      yield* Effect.sleep("100 millis")
      return "Reconnection test completed successfully"
    })
})

/** SEP-1613 / SEP-2106: JSON Schema 2020-12 keywords the listing must preserve. */
const JSON_SCHEMA_2020_12_INPUT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } }
    }
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" }
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false
}

const jsonSchemaTool = Tool.make("json_schema_2020_12_tool", {
  description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)",
  parameters: Schema.Struct({
    name: Schema.optionalKey(Schema.String),
    address: Schema.optionalKey(Schema.Struct({
      street: Schema.optionalKey(Schema.String),
      city: Schema.optionalKey(Schema.String)
    })),
    contactMethod: Schema.optionalKey(Schema.Literals(["phone", "email"])),
    phone: Schema.optionalKey(Schema.String),
    email: Schema.optionalKey(Schema.String)
  }),
  handler: (args) => Effect.succeed(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)
})

/** The same tool, advertising the hand-written 2020-12 schema (an Effect Schema cannot express if/then/else). */
const jsonSchema2020_12: typeof jsonSchemaTool = {
  ...jsonSchemaTool,
  definition: {
    ...jsonSchemaTool.definition,
    inputSchema: JSON_SCHEMA_2020_12_INPUT_SCHEMA as typeof jsonSchemaTool.definition.inputSchema
  }
}

export const tools = [
  simpleText,
  imageContent,
  audioContent,
  embeddedResource,
  multipleContentTypes,
  toolWithLogging,
  toolWithProgress,
  errorHandling,
  samplingTool,
  elicitationTool,
  sep1034Defaults,
  sep1330Enums,
  reconnection,
  jsonSchema2020_12
] as const

// -- Resources ----------------------------------------------------------------

const staticText = Resource.make({
  uri: "test://static-text",
  name: "static-text",
  title: "Static Text Resource",
  description: "A static text resource for testing",
  mimeType: "text/plain",
  handler: Effect.succeed("This is the content of the static text resource.")
})

const staticBinary = Resource.make({
  uri: "test://static-binary",
  name: "static-binary",
  title: "Static Binary Resource",
  description: "A static binary resource (image) for testing",
  mimeType: "image/png",
  handler: Effect.succeed({ contents: [{ blob: TEST_IMAGE_BASE64 }] })
})

const watched = Resource.make({
  uri: "test://watched-resource",
  name: "watched-resource",
  title: "Watched Resource",
  description: "A resource clients may watch for updates",
  mimeType: "text/plain",
  handler: Effect.succeed("Watched resource content")
})

const template = Resource.template({
  uriTemplate: "test://template/{id}/data",
  name: "template",
  title: "Resource Template",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
  parameters: Schema.Struct({ id: Schema.String }),
  completions: {
    id: (value) => Effect.succeed(["1", "2", "3", "123"].filter((id) => id.startsWith(value)))
  },
  handler: ({ id }) => Effect.succeed(JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }))
})

export const resources = [staticText, staticBinary, watched, template] as const

// -- Prompts ------------------------------------------------------------------

const simplePrompt = Prompt.make("test_simple_prompt", {
  title: "Simple Test Prompt",
  description: "A simple prompt without arguments",
  handler: () => Effect.succeed("This is a simple prompt for testing.")
})

const promptWithArguments = Prompt.make("test_prompt_with_arguments", {
  title: "Prompt With Arguments",
  description: "A prompt with required arguments",
  arguments: Schema.Struct({
    arg1: Schema.String.annotate({ description: "First test argument" }),
    arg2: Schema.String.annotate({ description: "Second test argument" })
  }),
  completions: {
    arg1: (value) =>
      Effect.succeed(["paris", "park", "party", "test", "testValue1"].filter((v) => v.startsWith(value))),
    arg2: (value) => Effect.succeed(["testValue2", "world"].filter((v) => v.startsWith(value)))
  },
  handler: ({ arg1, arg2 }) => Effect.succeed(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)
})

const promptWithEmbeddedResource = Prompt.make("test_prompt_with_embedded_resource", {
  title: "Prompt With Embedded Resource",
  description: "A prompt that includes an embedded resource",
  arguments: Schema.Struct({
    resourceUri: Schema.String.annotate({ description: "URI of the resource to embed" })
  }),
  handler: ({ resourceUri }) =>
    Effect.succeed([
      {
        role: "user" as const,
        content: {
          type: "resource" as const,
          resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }
        }
      },
      { role: "user" as const, content: { type: "text" as const, text: "Please process the embedded resource above." } }
    ])
})

const promptWithImage = Prompt.make("test_prompt_with_image", {
  title: "Prompt With Image",
  description: "A prompt that includes image content",
  handler: () =>
    Effect.succeed([
      { role: "user" as const, content: { type: "image" as const, data: TEST_IMAGE_BASE64, mimeType: "image/png" } },
      { role: "user" as const, content: { type: "text" as const, text: "Please analyze the image above." } }
    ])
})

export const prompts = [simplePrompt, promptWithArguments, promptWithEmbeddedResource, promptWithImage] as const
