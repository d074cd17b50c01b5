/**
 * A 2026-07-28 server on stdio (`@mrtr/server`): `book_hotel` asks the user
 * for dates with `input_required`. One of the gateway example's two upstreams.
 */
import { Elicitation } from "@mrtr/core"
import { McpServer, StdioTransport, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"

const bookHotel = Tool.make("book_hotel", {
  description: "Books a hotel, asking for the nights",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      const { nights } = yield* Elicitation.form({
        key: "nights",
        message: `How many nights in ${city}?`,
        schema: Schema.Struct({ nights: Schema.Number })
      })
      return `Booked ${nights} night(s) in ${city}`
    })
})

StdioTransport.main(
  McpServer.tools(bookHotel).pipe(Layer.provideMerge(McpServer.layer({ name: "hotels", version: "1.0.0" })))
)
