/**
 * `@mrtr/testing/explore`: {@link Explore} with its vitest integration,
 * `it`: one call registers a test that explores a tool, prompt or resource
 * (see `Explore.check`) and fails with the shrunk conversation, the seed and
 * a test that reproduces it.
 *
 * **Example** (Exploring a tool in a test)
 *
 * ```ts
 * import * as Explore from "@mrtr/testing/explore"
 *
 * Explore.it("plan_trip", { server, arguments: { city: "Oslo" }, runs: 200 }, ({ ending }) => ending._tag === "Result")
 * ```
 *
 * Gotcha: a separate entry from `@mrtr/testing/vitest`, which vitest's main
 * process loads with the config and which must not load vitest's test API.
 * Requires `vitest` (a peer of this entry).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Vitest from "vitest"
import * as Explore from "./Explore.ts"

export * from "./Explore.ts"

/**
 * The options of {@link it}: `Explore.Options`, where the target defaults to
 * the test's title as a tool name, plus `timeout` (ms, default 120000) and
 * `printCoverage` (print the coverage when the exploration passes, default
 * `false`).
 *
 * @category models
 * @since 0.1.0
 */
export interface ItOptions<E> extends Explore.Options<E> {
  /** The test's timeout in milliseconds. @default 120000 */
  readonly timeout?: number | undefined
  /** Print the coverage of a passing exploration (paths never taken). @default false */
  readonly printCoverage?: boolean | undefined
}

/**
 * Registers a vitest test that explores `title` (a tool name, unless the
 * options name a `tool`, `prompt` or `resource`), checking `property` (also
 * accepted as `options.property`) on every conversation.
 *
 * @category constructors
 * @since 0.1.0
 */
export const it = <E>(title: string, options: ItOptions<E>, property?: Explore.Options<E>["property"]): void => {
  const named = options.tool !== undefined || options.prompt !== undefined || options.resource !== undefined
  const explored: Explore.Options<E> = {
    ...options,
    ...(named ? {} : { tool: title }),
    ...(property === undefined ? {} : { property })
  }
  Vitest.it(title, () =>
    Effect.runPromise(
      Explore.check(explored).pipe(
        Effect.tap((result) =>
          options.printCoverage === true
            ? Effect.sync(() => console.log(Explore.formatCoverage(result.coverage)))
            : Effect.void
        ),
        Effect.mapError((error) => error instanceof Explore.ExplorationFailed ? new Error(error.message) : error)
      )
    ), options.timeout ?? 120_000)
}
