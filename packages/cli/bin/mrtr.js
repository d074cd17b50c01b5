#!/usr/bin/env node
// The `mrtr` command: compiled JavaScript run with plain `node`. `dist/mrtr.mjs` is `dist/main.js` with its
// dependencies bundled into one module (`npm run build`), so start-up reads one file instead of several hundred.
import module from "node:module"

// Node 22.1+: keep V8's compiled code between runs (in the OS temp folder); a no-op where unsupported.
module.enableCompileCache?.()
await import("../dist/mrtr.mjs")
