/**
 * The `mrtr` executable: runs the command with the process arguments and
 * exits with its code (see `Cli.ExitCode`).
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import * as Cli from "./Cli.ts"

Cli.run(process.argv.slice(2)).pipe(
  Effect.flatMap((code) => Effect.sync(() => process.exit(code))),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
