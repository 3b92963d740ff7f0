/* SQLite's process-wide settings, which Swift cannot make itself: sqlite3_config(3) is variadic. */
#ifndef RIDEGATE_SQLITE_SHIM_H
#define RIDEGATE_SQLITE_SHIM_H

/* sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0): no memory statistics, so no global mutex taken around each of
 * SQLite's allocations and frees. Only before SQLite initialises (the first connection): SQLITE_MISUSE after. */
int rg_sqlite_memory_statistics_off(void);

#endif
