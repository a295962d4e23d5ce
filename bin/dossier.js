#!/usr/bin/env -S node --max-semi-space-size=8
// A young generation of 2 × 8 MB instead of Node 24's 2 × 32 MB on a large machine: 20 MB less idle
// RSS for a server (issue 16; docs/operations.md).
// The CLI is TypeScript run by Node 24's type stripping; this shim only locates it, after turning
// on Node's compile cache (NODE_COMPILE_CACHE, or node-compile-cache in the temporary directory):
// from the second start on, every module's stripped and compiled code comes from the cache, so the
// type stripper (a WebAssembly build of swc) is never loaded — 15–17 MB less idle RSS and a faster
// start (issue 29; docs/decisions.md). Entries are keyed by the source's content: a changed file
// is compiled again. The import is dynamic so that it runs after the cache is on.
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('../src/cli/main.ts');
