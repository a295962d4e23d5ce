#!/usr/bin/env node
// The CLI is TypeScript run by Node 24's type stripping; this shim only locates it.
import '../src/cli/main.ts';
