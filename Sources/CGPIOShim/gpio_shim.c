#define _GNU_SOURCE
#include "gpio_shim.h"
#include <gpiod.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_text(char *dst, size_t size, const char *src) {
    if (!dst || size == 0) return;
    snprintf(dst, size, "%s", src ? src : "");
}

/* "gpiochip0" -> "/dev/gpiochip0"; paths pass through. */
static void chip_path(const char *chip, char *out, size_t size) {
    if (strchr(chip, '/')) snprintf(out, size, "%s", chip);
    else snprintf(out, size, "/dev/%s", chip);
}

#if defined(GPIOD_LINE_BULK_MAX_LINES) /* a v1-only macro */

struct rg_gpio_line { struct gpiod_chip *chip; struct gpiod_line *line; char path[128]; unsigned int offset; };

int rg_gpio_api_major(void) { return 1; }

/* The line by name (on whichever chip has it) or by chip and offset, with its chip open. */
static struct gpiod_line *find_line(const char *chip, unsigned int offset, const char *line_name, struct gpiod_chip **c) {
    struct gpiod_line *l = NULL;
    if (line_name) {
        l = gpiod_line_find(line_name); /* opens the owning chip; ENOENT when no chip has it */
        if (!l) { if (errno == 0) errno = ENOENT; return NULL; }
        *c = gpiod_line_get_chip(l);
        return l;
    }
    if (!chip) { errno = EINVAL; return NULL; }
    char path[128]; chip_path(chip, path, sizeof path);
    *c = gpiod_chip_open(path);
    if (!*c) return NULL;
    l = gpiod_chip_get_line(*c, offset);
    if (!l) { int e = errno; gpiod_chip_close(*c); errno = e; return NULL; }
    return l;
}

static rg_gpio_line *handle(struct gpiod_chip *c, struct gpiod_line *l) {
    rg_gpio_line *h = calloc(1, sizeof *h);
    if (!h) { gpiod_line_release(l); gpiod_chip_close(c); errno = ENOMEM; return NULL; }
    h->chip = c; h->line = l; h->offset = gpiod_line_offset(l);
    snprintf(h->path, sizeof h->path, "/dev/%s", gpiod_chip_name(c));
    return h;
}

rg_gpio_line *rg_gpio_request_edges(const char *chip, unsigned int offset, const char *line_name,
                                    const char *consumer, int active_low, int pull_up,
                                    char *busy_consumer, size_t busy_consumer_size) {
    struct gpiod_chip *c = NULL;
    struct gpiod_line *l = find_line(chip, offset, line_name, &c);
    if (!l) return NULL;
    struct gpiod_line_request_config config = {
        .consumer = consumer, .request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0) | (pull_up ? GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP : 0),
    };
    if (gpiod_line_request(l, &config, 0) < 0) {
        int e = errno;
        if (e == EBUSY) { gpiod_line_update(l); copy_text(busy_consumer, busy_consumer_size, gpiod_line_consumer(l)); }
        gpiod_chip_close(c);
        errno = e;
        return NULL;
    }
    return handle(c, l);
}

int rg_gpio_event_fd(const rg_gpio_line *h) { return h ? gpiod_line_event_get_fd(h->line) : -1; }

int rg_gpio_read_edge(rg_gpio_line *h, unsigned long long *ns) {
    if (!h) { errno = EINVAL; return -1; }
    struct gpiod_line_event event;
    if (gpiod_line_event_read(h->line, &event) < 0) return -1;
    if (ns) *ns = (unsigned long long)event.ts.tv_sec * 1000000000ULL + (unsigned long long)event.ts.tv_nsec;
    return gpiod_line_get_value(h->line);
}
const char *rg_gpio_library_version(void) { return gpiod_version_string(); }

rg_gpio_line *rg_gpio_request_output(const char *chip, unsigned int offset, const char *line_name,
                                     const char *consumer, int active_low, int initial_value,
                                     char *busy_consumer, size_t busy_consumer_size) {
    struct gpiod_chip *c = NULL;
    struct gpiod_line *l = find_line(chip, offset, line_name, &c);
    if (!l) return NULL;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (gpiod_line_request_output_flags(l, consumer, flags, initial_value ? 1 : 0) < 0) {
        int e = errno;
        if (e == EBUSY) { gpiod_line_update(l); copy_text(busy_consumer, busy_consumer_size, gpiod_line_consumer(l)); }
        gpiod_chip_close(c);
        errno = e;
        return NULL;
    }
    return handle(c, l);
}

int rg_gpio_set_value(rg_gpio_line *h, int value) {
    if (!h) { errno = EINVAL; return -1; }
    return gpiod_line_set_value(h->line, value ? 1 : 0) < 0 ? -1 : 0;
}

void rg_gpio_release(rg_gpio_line *h) {
    if (!h) return;
    gpiod_line_release(h->line);
    gpiod_chip_close(h->chip);
    free(h);
}

#else /* libgpiod v2 */

struct rg_gpio_line {
    struct gpiod_chip *chip; struct gpiod_line_request *request; char path[128]; unsigned int offset;
    struct gpiod_edge_event_buffer *events; /* inputs only */
};

int rg_gpio_api_major(void) { return 2; }
const char *rg_gpio_library_version(void) { return gpiod_api_version(); }

/* v2 has no gpiod_line_find(): walk the chips in /dev. */
static struct gpiod_chip *find_line_by_name(const char *name, unsigned int *offset, char *path, size_t size) {
    DIR *dir = opendir("/dev");
    if (!dir) return NULL;
    struct gpiod_chip *found = NULL;
    struct dirent *entry;
    while (!found && (entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, "gpiochip", 8) != 0) continue;
        snprintf(path, size, "/dev/%s", entry->d_name);
        struct gpiod_chip *c = gpiod_chip_open(path);
        if (!c) continue;
        int o = gpiod_chip_get_line_offset_from_name(c, name);
        if (o >= 0) { found = c; *offset = (unsigned int)o; } else gpiod_chip_close(c);
    }
    closedir(dir);
    if (!found) errno = ENOENT;
    return found;
}

/* Requests `offset` on the chip at `chip` (or the line named `line_name` on whichever chip has it) with the
 * settings `configure` fills in. */
static rg_gpio_line *request_line(const char *chip, unsigned int offset, const char *line_name, const char *consumer,
                                  void (*configure)(struct gpiod_line_settings *, int, int), int a, int b,
                                  char *busy_consumer, size_t busy_consumer_size) {
    char path[128];
    struct gpiod_chip *c;
    if (line_name) {
        c = find_line_by_name(line_name, &offset, path, sizeof path);
    } else {
        if (!chip) { errno = EINVAL; return NULL; }
        chip_path(chip, path, sizeof path);
        c = gpiod_chip_open(path);
    }
    if (!c) return NULL;

    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    struct gpiod_line_request *request = NULL;
    int e = ENOMEM;
    if (settings && line_config && request_config) {
        configure(settings, a, b);
        if (consumer) gpiod_request_config_set_consumer(request_config, consumer);
        if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) == 0)
            request = gpiod_chip_request_lines(c, request_config, line_config);
        e = errno;
    }
    gpiod_request_config_free(request_config);
    gpiod_line_config_free(line_config);
    gpiod_line_settings_free(settings);

    if (!request) {
        if (e == EBUSY) {
            struct gpiod_line_info *info = gpiod_chip_get_line_info(c, offset);
            if (info) { copy_text(busy_consumer, busy_consumer_size, gpiod_line_info_get_consumer(info)); gpiod_line_info_free(info); }
        }
        gpiod_chip_close(c);
        errno = e;
        return NULL;
    }
    rg_gpio_line *h = calloc(1, sizeof *h);
    if (!h) { gpiod_line_request_release(request); gpiod_chip_close(c); errno = ENOMEM; return NULL; }
    h->chip = c; h->request = request; h->offset = offset;
    snprintf(h->path, sizeof h->path, "%s", path);
    return h;
}

static void output_settings(struct gpiod_line_settings *s, int active_low, int initial_value) {
    gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(s, active_low ? true : false);
    gpiod_line_settings_set_output_value(s, initial_value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

static void edge_settings(struct gpiod_line_settings *s, int active_low, int pull_up) {
    gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(s, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_active_low(s, active_low ? true : false);
    if (pull_up) gpiod_line_settings_set_bias(s, GPIOD_LINE_BIAS_PULL_UP);
}

rg_gpio_line *rg_gpio_request_output(const char *chip, unsigned int offset, const char *line_name,
                                     const char *consumer, int active_low, int initial_value,
                                     char *busy_consumer, size_t busy_consumer_size) {
    return request_line(chip, offset, line_name, consumer, output_settings, active_low, initial_value, busy_consumer, busy_consumer_size);
}

rg_gpio_line *rg_gpio_request_edges(const char *chip, unsigned int offset, const char *line_name,
                                    const char *consumer, int active_low, int pull_up,
                                    char *busy_consumer, size_t busy_consumer_size) {
    rg_gpio_line *h = request_line(chip, offset, line_name, consumer, edge_settings, active_low, pull_up, busy_consumer, busy_consumer_size);
    if (!h) return NULL;
    h->events = gpiod_edge_event_buffer_new(1);
    if (!h->events) { rg_gpio_release(h); errno = ENOMEM; return NULL; }
    return h;
}

int rg_gpio_event_fd(const rg_gpio_line *h) { return h ? gpiod_line_request_get_fd(h->request) : -1; }

int rg_gpio_read_edge(rg_gpio_line *h, unsigned long long *ns) {
    if (!h || !h->events) { errno = EINVAL; return -1; }
    if (gpiod_line_request_read_edge_events(h->request, h->events, 1) < 0) return -1;
    struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(h->events, 0);
    if (ns && event) *ns = (unsigned long long)gpiod_edge_event_get_timestamp_ns(event);
    int value = gpiod_line_request_get_value(h->request, h->offset);
    return value < 0 ? -1 : (value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0);
}

int rg_gpio_set_value(rg_gpio_line *h, int value) {
    if (!h) { errno = EINVAL; return -1; }
    return gpiod_line_request_set_value(h->request, h->offset,
               value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) < 0 ? -1 : 0;
}

void rg_gpio_release(rg_gpio_line *h) {
    if (!h) return;
    if (h->events) gpiod_edge_event_buffer_free(h->events);
    gpiod_line_request_release(h->request);
    gpiod_chip_close(h->chip);
    free(h);
}

#endif

const char *rg_gpio_line_chip_path(const rg_gpio_line *h) { return h ? h->path : ""; }
unsigned int rg_gpio_line_offset(const rg_gpio_line *h) { return h ? h->offset : 0; }
