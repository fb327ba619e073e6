#!/usr/bin/env node
// The `tidewatch` command. The CLI is TypeScript compiled to dist/ (`npm run build`); this file only starts it.
import { runCli } from '../dist/cli/main.js'

await runCli()
