/**
 * Authorization: a server that is an OAuth 2.1 protected resource. Every request needs a bearer token of the
 * authorization server (JWT access tokens checked against its JWKS), `save_note` needs the scope `notes:write` too, and
 * every `requestState` is bound to the signed-in user. For a self-contained run this file also starts a local
 * authorization server (oidc-provider, as the tests do); in production you name your own issuer.
 * Run it: `npx tsx examples/authorization/server.ts [port]` (prints `listening <url>`); `client.ts` signs in and calls it.
 */
// #region server
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation } from "@mrtr/core"
import { Authorization, HttpTransport, McpServer, Tool } from "@mrtr/server"
import { startAuthorizationServer } from "@mrtr/test-support/oauth" // #hide
import { Console, Effect, Layer, Option, Schema } from "effect"

const Note = Schema.Struct({ text: Schema.String.annotate({ title: "Note" }) })

const saveNote = Tool.make("save_note", {
  scopes: ["notes:write"], // checked before the handler runs: 403 insufficient_scope without it
  handler: () =>
    Effect.gen(function*() {
      const { text } = yield* Elicitation.form({ key: "note", message: "What should I note?", schema: Note })
      const caller = yield* Authorization.authInfo // Option<AuthInfo>: issuer, subject, scopes, claims
      return `Saved "${text}" for ${Option.match(caller, { onNone: () => "nobody", onSome: (a) => a.subject })}.`
    })
})

const server = McpServer.tools(saveNote).pipe(Layer.provideMerge(McpServer.layer({ name: "notes", version: "1.0.0" })))

/** The HTTP endpoint as a protected resource of the authorization server `issuer`. */
export const protect = (port: number, issuer: { readonly issuer: string; readonly jwksUri: string }) =>
  HttpTransport.layer({ port }).pipe(
    Layer.provide(Authorization.layer({
      verifier: Authorization.jwt(issuer), // the issuer and its JWKS; Authorization.introspection for opaque tokens
      requiredScopes: ["notes"], // every request
      scopesSupported: ["notes", "notes:write"]
    })),
    Layer.provide(server)
  )
// #endregion server

/** {@link protect} behind a local authorization server started for the example (and stopped with the layer). */
export const serve = (port: number) =>
  Layer.unwrap(Effect.gen(function*() {
    const as = yield* Effect.acquireRelease(
      Effect.promise(() => startAuthorizationServer({ scopes: ["notes", "notes:write"] })),
      (as) => Effect.promise(() => as.close())
    )
    return protect(port, as)
  }))

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
