/* SQLite's process-wide settings, which Swift cannot make itself: sqlite3_config(3) is variadic. */
#ifndef RIDEGATE_SQLITE_SHIM_H
#define RIDEGATE_SQLITE_SHIM_H

/* Only before SQLite initialises (the first connection): SQLITE_MISUSE after.
 *
 * sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0): no memory statistics, so no global mutex taken around each of
 * SQLite's allocations and frees.
 *
 * sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0): no page cache allocated up front. By default every page
 * cache (a connection's, and each temporary table a query sorts in) allocates 20 pages' worth when first used
 * and writes each slot's header, so all of it is resident whether it then holds 20 pages or two: 26 KB for a
 * 1 KiB-page file, 86 KB for a 4 KiB one. Without it pages are allocated as they are read, up to cache_size,
 * and reused from there (the demo's anonymous memory: 2.2 -> 2.07 MB). */
int rg_sqlite_configure_process(void);

#endif
