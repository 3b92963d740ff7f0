/* One requested GPIO output line, over libgpiod's v1 API (1.6, Raspberry Pi OS bookworm) or its v2 API
 * (2.x, trixie). The API is chosen at compile time from <gpiod.h>; Swift sees only this header. */
#ifndef RIDEGATE_GPIO_SHIM_H
#define RIDEGATE_GPIO_SHIM_H
#include <stddef.h>

typedef struct rg_gpio_line rg_gpio_line;

/* 1 or 2: the libgpiod API this file was compiled against. */
int rg_gpio_api_major(void);
/* The library's own version string at run time ("1.6.3", "2.2.1"). */
const char *rg_gpio_library_version(void);

/* Requests one line as an output driven to `initial_value` (logical: 1 = LED on).
 * The line is `offset` on `chip` (a path such as "/dev/gpiochip0" or a name such as "gpiochip0"), or, when
 * `line_name` is not NULL, the line with that name on whichever chip has it ("GPIO17": the Pi 5 puts the
 * header on a different chip than the Pi 4). Returns NULL with errno set on failure; when the line is
 * busy (EBUSY) the current consumer's label is copied into `busy_consumer` (may be NULL). */
rg_gpio_line *rg_gpio_request_output(const char *chip, unsigned int offset, const char *line_name,
                                     const char *consumer, int active_low, int initial_value,
                                     char *busy_consumer, size_t busy_consumer_size);
/* The chip path and offset the request ended up on (useful when it was found by name). */
const char *rg_gpio_line_chip_path(const rg_gpio_line *line);
unsigned int rg_gpio_line_offset(const rg_gpio_line *line);
/* 0 on success, -1 with errno set on failure. */
int rg_gpio_set_value(rg_gpio_line *line, int value);
/* Requests one line as an input reporting both edges (a button): the same ways of naming it as above;
 * `pull_up` asks for the line's bias to pull it up (a button to ground needs no resistor of its own). */
rg_gpio_line *rg_gpio_request_edges(const char *chip, unsigned int offset, const char *line_name,
                                    const char *consumer, int active_low, int pull_up,
                                    char *busy_consumer, size_t busy_consumer_size);
/* The descriptor that becomes readable when an edge is waiting. */
int rg_gpio_event_fd(const rg_gpio_line *line);
/* Takes one waiting edge: its kernel timestamp (ns, monotonic) in `*ns`, and returns the line's logical value
 * after it (1 active: pressed), or -1 with errno set. */
int rg_gpio_read_edge(rg_gpio_line *line, unsigned long long *ns);
/* Releases the line and frees the handle; NULL is fine. */
void rg_gpio_release(rg_gpio_line *line);

#endif
