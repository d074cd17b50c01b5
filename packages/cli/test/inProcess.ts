/**
 * Test helper: runs the `mrtr` command in this process (`Cli.run`, what `main.ts` runs before exiting), capturing
 * stdout and stderr, for the many small cases where booting a process each time would only cost time.
 */
import { Console, Effect } from "effect"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import * as Cli from "../src/Cli.ts"

/** What one run printed, and its exit code. */
export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** `mrtr <args>` in process. */
export const inProcess = async (args: ReadonlyArray<string>): Promise<Run> => {
  let stdout = ""
  let stderr = ""
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, callback) {
        append(String(chunk))
        callback()
      }
    })
  const console = new NodeConsole({ stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)) })
  const code = await Effect.runPromise(
    Cli.run(args).pipe(
      Effect.provideService(Console.Console, console as unknown as Console.Console),
      Effect.provideService(Cli.Stdout, (text) => Effect.sync(() => void (stdout += text)))
    )
  )
  return { code, stdout, stderr }
}
