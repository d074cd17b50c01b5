/**
 * How `mrtr` signs in to an MCP server that answers `401`: the client's
 * `Authorization` flow with
 *
 * - a loopback {@link UserAgent}: it asks first (in a terminal, like a
 *   URL-mode elicitation), opens the authorization URL in the browser
 *   (`$BROWSER` when set, a command line the URL is appended to, else the
 *   platform's opener; never through a shell), and receives the redirect on
 *   `http://127.0.0.1:<port>/callback` (RFC 8252 §7.3), answering the browser
 *   with a short page. Without a terminal it prints the URL on stderr (and
 *   opens `$BROWSER` only when set) and waits;
 * - tokens in a file store, `tokens.json` under the user's config directory
 *   (`$MRTR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mrtr`, else
 *   `~/.config/mrtr`; `%APPDATA%\mrtr` on Windows), mode 0600;
 * - `--client-id` / `--client-secret` for a pre-registered client.
 *
 * Gotchas: only `https` authorization URLs (or `http` on loopback) are ever
 * opened; the listener accepts one redirect, on `127.0.0.1` only, and gives
 * up after `timeoutMillis` (default 5 minutes). The wait is the user's: the
 * client's `requestTimeout` and `probeTimeout` do not count it; `--timeout`
 * (the whole call) does, as it counts answering a form.
 *
 * Source: MCP 2026-07-28 basic/authorization; RFC 8252 (native apps);
 * security best practices (authorization URLs).
 *
 * @since 0.1.0
 */
import { Authorization, TokenStore } from "@mrtr/client"
import { Effect, Fiber, Layer } from "effect"
import { Prompt } from "effect/cli"
import { spawn } from "node:child_process"
import * as Http from "node:http"
import { homedir } from "node:os"
import { join } from "node:path"
import { clean } from "./Report.ts"
import * as TerminalUser from "./TerminalUser.ts"

/**
 * The token file: `$MRTR_CONFIG_DIR/tokens.json`, else
 * `$XDG_CONFIG_HOME/mrtr/tokens.json`, else `~/.config/mrtr/tokens.json`
 * (`%APPDATA%\mrtr\tokens.json` on Windows).
 *
 * @category constants
 * @since 0.1.0
 */
export const tokenFile = (env: NodeJS.ProcessEnv = process.env): string => {
  if (env.MRTR_CONFIG_DIR !== undefined && env.MRTR_CONFIG_DIR !== "") return join(env.MRTR_CONFIG_DIR, "tokens.json")
  if (process.platform === "win32" && env.APPDATA !== undefined) return join(env.APPDATA, "mrtr", "tokens.json")
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ""
    ? env.XDG_CONFIG_HOME
    : join(homedir(), ".config")
  return join(base, "mrtr", "tokens.json")
}

/**
 * The default loopback port of the redirect URI.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_CALLBACK_PORT = 33418

const openable = (url: URL) =>
  url.protocol === "https:" ||
  (url.protocol === "http:" &&
    (url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"))

/** Opens `url` with `$BROWSER` (a command line, split on spaces, the URL appended), else the platform's opener. */
const openWith = (browser: string | undefined, url: string): Effect.Effect<void> =>
  browser === undefined || browser.trim() === ""
    ? TerminalUser.openInBrowser(url)
    : Effect.sync(() => {
      const [command, ...args] = browser.trim().split(/\s+/)
      try {
        const child = spawn(command!, [...args, url], { stdio: "ignore", detached: true })
        child.on("error", () => {})
        child.unref()
      } catch {
        // best effort: the URL is on stderr too
      }
    })

const PAGE =
  "<!doctype html><meta charset=utf-8><title>mrtr</title><p>Signed in. You can close this window and return to the terminal."

/** Waits for one `GET /callback` on `127.0.0.1:port`; answers the browser; returns the full redirect URL. */
const receiveRedirect = (port: number, timeoutMillis: number) =>
  Effect.callback<URL, Authorization.AuthorizationError>((resume) => {
    const server = Http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`)
      if (req.method !== "GET" || url.pathname !== "/callback") {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(PAGE)
      finish(() => resume(Effect.succeed(url)))
    })
    const timer = setTimeout(
      () =>
        finish(() =>
          resume(Effect.fail(new Authorization.AuthorizationError({ reason: "no sign-in arrived in time" })))
        ),
      timeoutMillis
    )
    let done = false
    const finish = (then: () => void) => {
      if (done) return
      done = true
      clearTimeout(timer)
      server.close()
      server.closeAllConnections()
      then()
    }
    server.on("error", (error) =>
      finish(() =>
        resume(Effect.fail(
          new Authorization.AuthorizationError({
            reason: `cannot listen on 127.0.0.1:${port} for the sign-in redirect`,
            cause: error
          })
        ))
      ))
    server.listen(port, "127.0.0.1")
    return Effect.sync(() => finish(() => {}))
  })

/**
 * The loopback {@link Authorization.UserAgent} described in the module
 * header. `interactive`: ask before opening (a terminal is there).
 *
 * @category constructors
 * @since 0.1.0
 */
export const loopbackUserAgent = (options: {
  readonly port?: number | undefined
  readonly interactive: boolean
  readonly browser?: string | undefined
  readonly timeoutMillis?: number | undefined
}): Layer.Layer<Authorization.UserAgent, never, Prompt.Environment> =>
  Layer.effect(
    Authorization.UserAgent,
    Effect.gen(function*() {
      const environment = yield* Effect.context<Prompt.Environment>()
      const port = options.port ?? DEFAULT_CALLBACK_PORT
      return Authorization.UserAgent.of({
        redirectUri: `http://127.0.0.1:${port}/callback`,
        authorize: (url) =>
          Effect.gen(function*() {
            if (!openable(url)) {
              return yield* new Authorization.AuthorizationError({
                reason: `the authorization URL is neither https nor loopback http: ${clean(url.origin)}`
              })
            }
            // Listen first: the browser may come back before the prompt is gone.
            const redirect = yield* Effect.forkChild(receiveRedirect(port, options.timeoutMillis ?? 300_000))
            if (options.interactive) {
              const yes = yield* Prompt.run(Prompt.Confirm({
                message: `The server asks you to sign in at ${clean(url.origin)}. Open the browser?`,
                initial: true
              })).pipe(
                Effect.provideContext(environment),
                Effect.orElseSucceed(() => false)
              )
              if (!yes) return yield* new Authorization.AuthorizationError({ reason: "you declined to sign in" })
            }
            yield* Effect.sync(() =>
              process.stderr.write(
                `mrtr: sign in at ${clean(url.href)}\n  (waiting for the browser on 127.0.0.1:${port})\n`
              )
            )
            // Without a terminal, only a browser of the user's choice is opened; else the URL above is all there is.
            if (options.interactive || options.browser !== undefined) yield* openWith(options.browser, url.href)
            return yield* Fiber.join(redirect)
          })
      })
    })
  )

/**
 * The flags of the sign-in.
 *
 * @category models
 * @since 0.1.0
 */
export interface SignInOptions {
  /** A pre-registered client id (`--client-id`), or `undefined` to register at the authorization server. */
  readonly clientId: string | undefined
  /** The secret of the pre-registered client (`--client-secret`), or `undefined` for a public client. */
  readonly clientSecret: string | undefined
  /** The loopback port of the sign-in's callback, or `undefined` for {@link DEFAULT_CALLBACK_PORT}. */
  readonly callbackPort: number | undefined
  /** Whether a person is at the terminal: the sign-in asks before opening the browser, and opens it. */
  readonly interactive: boolean
}

/**
 * `Authorization` for `mrtr`: the loopback user agent, the file token store
 * at {@link tokenFile}, pre-registered credentials when given.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: SignInOptions): Layer.Layer<Authorization.Authorization, never, Prompt.Environment> =>
  Authorization.layerWithStore({
    clientName: "mrtr",
    clientId: options.clientId,
    clientSecret: options.clientSecret
  }).pipe(
    Layer.provide(loopbackUserAgent({
      port: options.callbackPort,
      interactive: options.interactive,
      browser: process.env.BROWSER?.trim() || undefined
    })),
    Layer.provide(TokenStore.layerFile(tokenFile()))
  )

/**
 * Forgets the tokens of `url`, or every token and client registration.
 *
 * @category tokens
 * @since 0.1.0
 */
export const logout = (url: string | undefined): Effect.Effect<void> =>
  TokenStore.TokenStore.use((store) => store.clear(url)).pipe(Effect.provide(TokenStore.layerFile(tokenFile())))
