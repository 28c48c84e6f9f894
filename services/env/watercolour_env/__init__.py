"""The watercolour-rl environment: gate, sandboxed renderer, cache and OpenEnv server."""
