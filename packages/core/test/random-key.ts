// Builds three codecs and a key ring with random per-process keys, with the
// default logger (no LogToStderr), then prints "done" on stdout.
import { Effect, Layer } from "effect"
import { KeyRing, RequestStateCodec } from "../src/RequestState.ts"

const program = Effect.gen(function*() {
  yield* KeyRing.generate
  for (let i = 0; i < 3; i++) {
    yield* Effect.provide(Effect.service(RequestStateCodec), Layer.fresh(RequestStateCodec.layerConfig))
  }
  yield* Effect.sync(() => process.stdout.write("done\n"))
})

Effect.runPromise(program)
