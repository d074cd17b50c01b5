/**
 * A scripted `Terminal` for the prompt tests: key presses are fed from a
 * script, everything displayed is recorded.
 */
import { type Cause, Effect, FileSystem, Layer, Option, Path, Queue, Terminal } from "effect"
import { Prompt } from "effect/cli"

/** One key press with its character. */
export const char = (c: string): Terminal.UserInput => ({
  input: Option.some(c),
  key: { name: c === " " ? "space" : c.toLowerCase(), ctrl: false, meta: false, shift: c !== c.toLowerCase() }
})

/** A named key (`return`, `down`, `up`, `backspace`, `escape`, `tab`, `right`, …). */
export const key = (name: string, modifiers: { readonly ctrl?: boolean } = {}): Terminal.UserInput => ({
  input: Option.none(),
  key: { name, ctrl: modifiers.ctrl ?? false, meta: false, shift: false }
})

/** Typing a string: one key press per character. */
export const type = (text: string): ReadonlyArray<Terminal.UserInput> => Array.from(text).map(char)

export const enter = key("return")
export const down = key("down")
export const up = key("up")
export const space = char(" ")
export const escape = key("escape")
export const backspace = key("backspace")
export const right = key("right")

/** Strips ANSI escape sequences. */
export const plain = (text: string): string => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\u0007/g, "")

/**
 * The prompts' environment with a scripted terminal: `keys` are read in
 * order (an Esc ends the input like a real terminal's quit key; running out
 * of keys ends it too, unless `open`), and `output()` returns everything displayed.
 */
export const scripted = (
  keys: ReadonlyArray<Terminal.UserInput | ReadonlyArray<Terminal.UserInput>>,
  options: { readonly open?: boolean } = {}
) => {
  const output: Array<string> = []
  const queue = Effect.runSync(Queue.unbounded<Terminal.UserInput, Cause.Done>())
  for (const input of keys.flat()) {
    if (input.key.name === "escape") break
    Queue.offerUnsafe(queue, input)
  }
  // `open`: the person has not typed anything more yet (the input does not end).
  if (options.open !== true) Queue.endUnsafe(queue)
  const terminal = Terminal.make({
    columns: Effect.succeed(100),
    rows: Effect.succeed(40),
    size: Effect.die("unused"),
    readInput: Effect.succeed(queue),
    readLine: Effect.die("unused"),
    display: (text) => Effect.sync(() => void output.push(text))
  })
  const layer: Layer.Layer<Prompt.Environment> = Layer.mergeAll(
    Layer.succeed(Terminal.Terminal, terminal),
    FileSystem.layerNoop({}),
    Path.layer,
    Layer.succeed(Prompt.Theme, Prompt.makeTheme({ colors: false }))
  )
  return {
    layer,
    output: () => plain(output.join("")),
    remaining: () => Effect.runSync(Queue.size(queue))
  }
}
