#!/usr/bin/env -S node --max-semi-space-size=8
// A young generation of 2 × 8 MB instead of Node 24's 2 × 32 MB on a large machine: 20 MB less idle
// RSS for a server (issue 16; docs/operations.md).
// The CLI is TypeScript run by Node 24's type stripping; this shim only locates it.
import '../src/cli/main.ts';
