// Every feature's store extension, installed in the order /stats lists the build features. Each
// entry point that hands out a Store loads this first (lib/index.ts, lib/features/index.ts for a
// server, lib/cli/open_store.ts for the commands), so every store has the features' methods.
import './memory/store_extension';
import './rerank/store_extension';
import './mcp/store_extension';
import './code/store_extension';
import './sql/store_extension';
import './backups/store_extension';
