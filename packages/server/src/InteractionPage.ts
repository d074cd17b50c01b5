/**
 * The interaction page of secure (URL-mode) elicitations: the HTML form the
 * user completes in a browser, so that sensitive input never passes through
 * the MCP client.
 *
 * `Elicitation.secure` (in `@mrtr/core`) creates an interaction in the
 * `InteractionStore` and sends its URL, `<publicBaseUrl><path>/<id>`, in a
 * URL-mode elicitation; this module serves that URL. `GET` renders the form
 * (from the same flat schema as `Elicitation.form`); `POST` checks the CSRF
 * token, validates the values on the server (clear messages, the form kept),
 * seals them to the interaction's public key (`InteractionSeal`: the store,
 * Redis in a fleet, never holds them in clear), stores them and answers
 * "done, go back to your app"; the client's next retry opens them and hands
 * them to the handler.
 *
 * The page is safe by construction: no JavaScript, no third-party asset,
 * `Content-Security-Policy` (`default-src 'none'`, the one stylesheet by hash,
 * `form-action 'self'`, `frame-ancestors 'none'`), `X-Frame-Options: DENY`,
 * `Cache-Control: no-store`, `Referrer-Policy: same-origin` (the URL is the
 * secret: it never leaves as a referrer; `no-referrer` would make browsers
 * send `Origin: null` with the form), a CSRF token in the form and in a `SameSite=Strict`, `HttpOnly`
 * cookie, `Origin` / `Sec-Fetch-Site` checked on submit, a bounded body, and
 * single use. Where authorization is on, the interaction is bound to the
 * conversation's principal and only the same user may complete it: provide
 * `principal` (who the browser's user is, e.g. from your sign-in cookie);
 * without it `Elicitation.secure` refuses such asks (`UserIdentityRequired`).
 * Without authorization nobody can verify who opens a page, so the URL
 * alone would let anyone it reaches answer (and the value would go to
 * whoever started the call): `Elicitation.secure` refuses such asks too,
 * unless `singleUser: true` says that the server's only user is the person
 * at this machine (a local server, a stdio server).
 *
 * | request                                   | status | page                          |
 * |-------------------------------------------|--------|-------------------------------|
 * | unknown or malformed id (tampered)        | 404    | "This link is not valid"      |
 * | another user than the conversation's      | 403    | "belongs to another user"     |
 * | expired                                   | 410    | "This page has expired"       |
 * | already submitted                         | 409    | "already submitted"           |
 * | `GET`, pending                            | 200    | the form                      |
 * | `POST` cross-site / bad or missing token  | 403    | "could not be verified"       |
 * | `POST` not a form / too large             | 415 / 413 | a notice                   |
 * | `POST` invalid values                     | 400    | the form, with the reasons    |
 * | `POST` valid                              | 200    | "Done"                        |
 * | other methods                             | 405    | `Allow: GET, POST`            |
 *
 * Mount it with `HttpTransport.layer({ mount: InteractionPage.routes })` (the
 * base URL is then the bound address unless `publicBaseUrl` is set), or add
 * `InteractionPage.routes` to your own `HttpRouter` (then `publicBaseUrl` is
 * required), or serve them on a port of their own with `InteractionPage.serve`
 * (a server on stdio or in memory). Provide `InteractionPage.layer(...)` both to the tools (for
 * `Elicitation.secure`) and to the transport: the same layer value, so they
 * share one store.
 * Source: MCP 2026-07-28, client/elicitation (URL mode; security
 * considerations: "Safe URL Handling", identity of the user).
 *
 * @since 0.1.0
 */
import { ElicitationSchema, InteractionStore, InvalidOption } from "@mrtr/core"
import { InteractionLinks, InteractionSeal } from "@mrtr/core/engine"
import { ByteSize, Context, Effect, Layer, Option, Ref, Result } from "effect"
import type { HttpServerError, HttpServerRequest } from "effect/http"
import { HttpIncomingMessage, HttpRouter, HttpServer, HttpServerResponse, UrlParams } from "effect/http"
import { timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { HttpEndpoint } from "./HttpTransport.ts"
import { loadNodeHttpServer } from "./internal/http/nodeServer.ts"
import * as Html from "./internal/interactionHtml.ts"
import { McpServer } from "./McpServer.ts"

/**
 * Options of {@link layer}.
 *
 * - `path`: where the pages live (default `"/mrtr/interactions"`); a page is
 *   `<path>/<id>`.
 * - `publicBaseUrl`: the origin (and path prefix, if any) browsers reach the
 *   server at, e.g. `"https://mcp.example.com"` behind a proxy. Default: the
 *   address `HttpTransport.layer` is bound to (`http://127.0.0.1:<port>`).
 *   Submits whose `Origin` is not this origin are refused.
 * - `principal`: who the browser's user is (e.g. from your sign-in cookie);
 *   required to complete interactions of authenticated conversations
 *   (without it, secure asks of authenticated requests are refused).
 * - `singleUser`: acknowledges that the server has a single user, the person
 *   at this machine (a local server, a stdio server, a demo): a page of an
 *   unauthenticated conversation is then served to whoever opens its URL.
 *   Default `false`: without authorization every secure ask is refused with
 *   `UserIdentityRequired`, since nothing verifies who opens the page (an
 *   attacker could start the ask and send the link to a victim). Never set
 *   it on a server that other people can reach.
 * - `serverName`: shown on the page (default: the server's `title`, else its
 *   `name`).
 * - `maxBodyBytes`: largest accepted form body (default 65,536 bytes).
 * - `store`: the `InteractionStore` layer, default
 *   `InteractionStore.layerMemory()`. A fleet gives `Redis.layerFleet(...)`
 *   (the same Layer value it gives `McpServer.layer` as `shared`, so one
 *   connection serves both): a page submitted on one instance then resumes
 *   the conversation on any other.
 *
 * Invalid options (a `publicBaseUrl` that is not an absolute `http(s)` URL,
 * a `path` not starting with `/`) fail the Layer with `InvalidOption`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<ES = never> {
  readonly path?: `/${string}` | undefined
  readonly publicBaseUrl?: string | undefined
  readonly principal?:
    | ((request: HttpServerRequest.HttpServerRequest) => Effect.Effect<string | undefined>)
    | undefined
  readonly singleUser?: boolean | undefined
  readonly serverName?: string | undefined
  readonly maxBodyBytes?: number | undefined
  readonly store?: Layer.Layer<InteractionStore.InteractionStore, ES> | undefined
}

/**
 * Default path of the pages: `"/mrtr/interactions"`.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_PATH = "/mrtr/interactions" as const

/**
 * The page's configuration, as the routes read it: `path`, the public base
 * URL once known (`baseUrl`, set from `publicBaseUrl` or by the transport at
 * bind time through `setBaseUrl`), and the options.
 *
 * @category services
 * @since 0.1.0
 */
export class InteractionPage extends Context.Service<InteractionPage, {
  readonly path: `/${string}`
  readonly baseUrl: Effect.Effect<string | undefined>
  readonly setBaseUrl: (url: string) => Effect.Effect<void>
  readonly options: Options<unknown>
}>()("@mrtr/server/InteractionPage") {}

const trimSlash = (url: string): string => url.replace(/\/+$/, "")

// A Layer that fails with `error` when built.
const failed = <A>(error: InvalidOption): Layer.Layer<A, InvalidOption> =>
  Layer.unwrap<A, never, never, InvalidOption, never>(Effect.fail(error))

const invalid = (option: string, value: unknown, expected: string) =>
  InvalidOption.of("InteractionPage.layer", option, value, expected)

const checkedBase = (url: string): Result.Result<string, InvalidOption> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Result.fail(invalid("publicBaseUrl", url, "an absolute http: or https: URL"))
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return Result.fail(invalid("publicBaseUrl", url, "an absolute http: or https: URL"))
  }
  if (parsed.search !== "" || parsed.hash !== "") {
    return Result.fail(invalid("publicBaseUrl", url, "a URL without query or fragment"))
  }
  return Result.succeed(trimSlash(parsed.href))
}

/**
 * The page's services: `InteractionPage` (for the routes),
 * `InteractionLinks` (the page URL of an interaction, for
 * `Elicitation.secure`) and `InteractionStore` (from `options.store`, in
 * memory by default). Fails with `InvalidOption` for an invalid `path` or
 * `publicBaseUrl`, and with the error of `store` (a `RedisError` when the
 * fleet's Redis is unreachable at start-up). `urlOf` dies with a message naming the fix when no
 * base URL is known yet (no `publicBaseUrl`, and the routes were not mounted
 * by `HttpTransport.layer`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <ES = never>(
  options: Options<ES> = {}
): Layer.Layer<
  InteractionPage | InteractionLinks.InteractionLinks | InteractionStore.InteractionStore,
  InvalidOption | ES
> => {
  const path = trimSlash(options.path ?? DEFAULT_PATH) as `/${string}`
  if (!path.startsWith("/")) return failed(invalid("path", options.path, `a path starting with "/"`))
  const base = options.publicBaseUrl === undefined ? undefined : checkedBase(options.publicBaseUrl)
  if (base !== undefined && Result.isFailure(base)) return failed(base.failure)
  const configured = base?.success
  const page = Layer.effect(
    InteractionPage,
    Effect.map(Ref.make<string | undefined>(configured), (base) =>
      InteractionPage.of({
        path,
        baseUrl: Ref.get(base),
        setBaseUrl: (url) => configured === undefined ? Ref.set(base, trimSlash(url)) : Effect.void,
        options
      }))
  )
  const links = Layer.effect(
    InteractionLinks.InteractionLinks,
    InteractionPage.useSync((self) =>
      InteractionLinks.InteractionLinks.of({
        identifiesUsers: options.principal !== undefined,
        singleUser: options.singleUser === true,
        urlOf: (id) =>
          Effect.flatMap(self.baseUrl, (base) =>
            base === undefined
              ? Effect.die(
                new Error(
                  "InteractionPage: no public base URL for the interaction page: mount InteractionPage.routes with " +
                    "HttpTransport.layer({ mount: InteractionPage.routes }) or set publicBaseUrl"
                )
              )
              : Effect.succeed(`${base}${path}/${id}`))
      })
    )
  )
  return Layer.mergeAll(
    Layer.provideMerge(links, page),
    options.store ?? InteractionStore.InteractionStore.layerMemory()
  )
}

// -----------------------------------------------------------------------------
// Responses
// -----------------------------------------------------------------------------

const securityHeaders = {
  "content-security-policy":
    `default-src 'none'; style-src ${Html.styleHash}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  "x-frame-options": "DENY",
  "cache-control": "no-store",
  "pragma": "no-cache",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
} as const

const htmlResponse = (body: string, status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: securityHeaders })

const ID = /^[A-Za-z0-9_-]{43}$/
const CSRF_COOKIE = "mrtr_csrf"

const sameToken = (a: string | undefined, b: string): boolean => {
  if (a === undefined) return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

// -----------------------------------------------------------------------------
// Routes
// -----------------------------------------------------------------------------

/**
 * The page's routes (`GET` and `POST` on `<path>/:id`, 405 for other
 * methods) on the surrounding `HttpRouter`. Requires `InteractionPage` and
 * `InteractionStore` (from {@link layer}); reads the server's name from
 * `McpServer` when present. When `HttpEndpoint` is present (mounted by
 * `HttpTransport.layer`), its bound address becomes the base URL unless
 * `publicBaseUrl` is set.
 *
 * @category layers
 * @since 0.1.0
 */
export const routes: Layer.Layer<
  never,
  never,
  HttpRouter.HttpRouter | InteractionPage | InteractionStore.InteractionStore
> = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const page = yield* InteractionPage
    const store = yield* InteractionStore.InteractionStore
    const server = yield* Effect.serviceOption(McpServer)
    const endpoint = yield* Effect.serviceOption(HttpEndpoint)
    if (Option.isSome(endpoint)) yield* page.setBaseUrl(new URL(endpoint.value.url).origin)
    const serverName = page.options.serverName ??
      (Option.isSome(server) ? server.value.info.title ?? server.value.info.name : "MCP server")
    const handle = makeHandler(page, store, serverName)
    yield* router.add("*", `${page.path}/:id` as HttpRouter.PathInput, handle)
  })
)

/**
 * The pages on an HTTP server of their own, for a server whose MCP transport
 * is not HTTP (stdio, in memory): Node's `http` server bound to `host`
 * (default `"127.0.0.1"`) and `port` (default `0`, a free port), serving only
 * {@link routes} (other paths 404). The base URL is the bound address unless
 * `publicBaseUrl` is set. Requires what `routes` requires; fails with
 * `ServeError` when the port cannot be bound.
 *
 * @category layers
 * @since 0.1.0
 */
export const serve = (
  options: { readonly port?: number | undefined; readonly host?: string | undefined } = {}
): Layer.Layer<never, HttpServerError.ServeError, InteractionPage | InteractionStore.InteractionStore> => {
  const endpoint = Layer.effect(
    HttpEndpoint,
    Effect.map(HttpServer.HttpServer, (server) => {
      const url = HttpServer.formatAddress(server.address)
      return HttpEndpoint.of({ url, address: server.address, path: "/" })
    })
  )
  return HttpRouter.serve(routes.pipe(Layer.provide(endpoint)), { disableListenLog: true, disableLogger: true }).pipe(
    Layer.provide(
      Layer.unwrap(
        Effect.map(
          loadNodeHttpServer,
          (NodeHttpServer) =>
            NodeHttpServer.layer(() => createServer(), { port: options.port ?? 0, host: options.host ?? "127.0.0.1" })
        )
      )
    )
  )
}

type Store = InteractionStore.InteractionStore["Service"]
type Interaction = InteractionStore.Interaction

const makeHandler = (page: InteractionPage["Service"], store: Store, serverName: string) => {
  const maxBodyBytes = page.options.maxBodyBytes ?? 65_536
  const notice = (status: number, heading: string, text: string, kind: "done" | "error" = "error") =>
    htmlResponse(Html.notice(serverName, heading, text, kind), status)
  const notFound = notice(
    404,
    "This link is not valid",
    "This page does not exist. Go back to your app and start again."
  )
  const expired = notice(410, "This page has expired", "This page has expired. Go back to your app and start again.")
  const already = notice(
    409,
    "Already submitted",
    "This page was already submitted and cannot be used again. Go back to your app."
  )
  const otherUser = notice(
    403,
    "Not your page",
    "This page belongs to another user. Sign in as the user who started the conversation, then open the link again."
  )
  const unverified = notice(
    403,
    "The form could not be verified",
    "The form could not be verified (it is stale, or was sent from another site). Reload the page and try again."
  )
  const unavailable = notice(
    503,
    "Please try again in a moment",
    "This page cannot be reached right now. Nothing was lost: reload it in a moment."
  )
  // The store holds as many bytes as it may for this user (or address), or for unauthenticated requests.
  const storeFull = notice(
    503,
    "Please try again later",
    "The server holds too many answers right now. Nothing was stored: submit again later."
  )
  const done = notice(
    200,
    "Done",
    "Thank you: your answer was received. You can close this page and go back to your app.",
    "done"
  )

  const formResponse = (
    request: HttpServerRequest.HttpServerRequest,
    interaction: Interaction,
    status: number,
    shown: Html.Shown,
    problem?: string
  ) =>
    Effect.flatMap(page.baseUrl, (base) => {
      // The page's path as the browser sees it: behind a proxy, under the public base URL's own path.
      const path = base === undefined
        ? new URL(request.url, "http://localhost").pathname
        : `${new URL(base).pathname.replace(/\/+$/, "")}${page.path}/${interaction.id}`
      const body = Html.formPage({
        serverName,
        message: interaction.message,
        requestedSchema: interaction.requestedSchema,
        csrfToken: interaction.csrfToken,
        shown,
        problem
      })
      return Effect.clockWith((clock) =>
        HttpServerResponse.setCookie(htmlResponse(body, status), CSRF_COOKIE, interaction.csrfToken, {
          path,
          httpOnly: true,
          sameSite: "strict",
          secure: base?.startsWith("https:") ?? false,
          maxAge: `${Math.max(1, interaction.expiresAt - clock.currentTimeMillisUnsafe())} millis`
        })
      ).pipe(Effect.orDie)
    })

  // The interaction, when this user may see it; otherwise the page that says why not.
  const lookup = (request: HttpServerRequest.HttpServerRequest, id: string | undefined) =>
    Effect.gen(function*() {
      if (id === undefined || !ID.test(id)) return notFound
      const interaction = yield* store.get(id)
      if (interaction === undefined) return notFound
      if (interaction.principal !== undefined) {
        const user = page.options.principal === undefined ? undefined : yield* page.options.principal(request)
        if (user !== interaction.principal) return otherUser
      }
      switch (interaction.state) {
        case "expired":
          return expired
        case "completed":
        case "handedOut":
          return already
        case "pending":
          return interaction
      }
    })

  const crossSite = (request: HttpServerRequest.HttpServerRequest, base: string | undefined): boolean => {
    const site = request.headers["sec-fetch-site"]
    if (site !== undefined && site !== "same-origin" && site !== "none") return true
    const origin = request.headers["origin"]
    if (origin === undefined) return false
    return base === undefined || origin !== new URL(base).origin
  }

  const submit = (request: HttpServerRequest.HttpServerRequest, interaction: Interaction) =>
    Effect.gen(function*() {
      if (crossSite(request, yield* page.baseUrl)) return unverified
      const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase()
      if (type !== "application/x-www-form-urlencoded") {
        return notice(415, "Not a form", "This page only accepts its own form.")
      }
      const length = Number(request.headers["content-length"] ?? "0")
      const tooLarge = notice(413, "Too much data", "The form is larger than this server accepts.")
      if (length > maxBodyBytes) return tooLarge
      const params = yield* request.urlParamsBody.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes)),
        Effect.map((params) => ({ _tag: "Read" as const, params })),
        Effect.catch((error: HttpServerError.HttpServerError) =>
          Effect.succeed({
            _tag: "Unread" as const,
            large: error.reason._tag === "RequestParseError" && String(error.reason.reason) === "BodyTooLarge"
          })
        )
      )
      if (params._tag === "Unread") {
        return params.large
          ? tooLarge
          : notice(400, "Not a form", "The form could not be read.")
      }
      const token = Option.getOrUndefined(UrlParams.getFirst(params.params, "csrf"))
      if (!sameToken(token, interaction.csrfToken) || !sameToken(request.cookies[CSRF_COOKIE], interaction.csrfToken)) {
        return unverified
      }
      const content = Html.contentOf(interaction.requestedSchema, params.params)
      const problem = ElicitationSchema.refusal(interaction.requestedSchema, content)
      if (problem !== undefined) {
        return yield* formResponse(
          request,
          interaction,
          400,
          Html.shownAfterRefusal(interaction.requestedSchema, content),
          problem
        )
      }
      // Sealed to the interaction's key before it leaves this process: the store (Redis, in a fleet) never holds
      // the value in clear, and only the conversation's journaled private key opens it.
      const sealed = yield* InteractionSeal.seal(interaction.sealingKey, interaction.id, content)
      switch (yield* store.complete(interaction.id, sealed)) {
        case "completed":
          return done
        case "alreadyCompleted":
          return already
        case "expired":
          return expired
        case "unknown":
          return notFound
        case "full":
          return storeFull
      }
    })

  return (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      if (request.method !== "GET" && request.method !== "HEAD" && request.method !== "POST") {
        return HttpServerResponse.empty({ status: 405, headers: { allow: "GET, POST", ...securityHeaders } })
      }
      const params = yield* HttpRouter.params
      const found = yield* lookup(request, params["id"])
      if (HttpServerResponse.isHttpServerResponse(found)) return found
      if (request.method === "POST") return yield* submit(request, found)
      return yield* formResponse(request, found, 200, Object.create(null))
    }).pipe(
      // A shared store that did not answer (logged and counted by the store): nothing was accepted.
      Effect.catchTag("InteractionStoreUnavailable", () => Effect.succeed(unavailable))
    )
}
