#!/usr/bin/env node
// The `mrtr` command: the compiled entry point, run with plain `node` (`npm run build` makes dist/).
import "../dist/main.js"
