#include "curl_shim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct rg_curl {
    void *handle;
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    curl_mime *(*mime_init)(CURL *);
    curl_mimepart *(*mime_addpart)(curl_mime *);
    CURLcode (*mime_name)(curl_mimepart *, const char *);
    CURLcode (*mime_data)(curl_mimepart *, const char *, size_t);
    CURLcode (*mime_filedata)(curl_mimepart *, const char *);
    CURLcode (*mime_filename)(curl_mimepart *, const char *);
    CURLcode (*mime_type)(curl_mimepart *, const char *);
    void (*mime_free)(curl_mime *);
};

/* Finds `name` into `slot`; false (the reason in `error`) when libcurl lacks it. */
static int find(rg_curl *lib, void **slot, const char *name, char *error, size_t error_size) {
    *slot = dlsym(lib->handle, name);
    if (*slot == NULL) snprintf(error, error_size, "libcurl.so.4 has no %s (older than 7.56?)", name);
    return *slot != NULL;
}

rg_curl *rg_curl_open(char *error, size_t error_size) {
    rg_curl *lib = calloc(1, sizeof *lib);
    if (lib == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    lib->handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (lib->handle == NULL) {
        const char *why = dlerror();
        snprintf(error, error_size, "%s", why ? why : "libcurl.so.4 not found");
        free(lib);
        return NULL;
    }
    struct { void **slot; const char *name; } functions[] = {
        {(void **)&lib->global_init, "curl_global_init"}, {(void **)&lib->easy_init, "curl_easy_init"},
        {(void **)&lib->easy_cleanup, "curl_easy_cleanup"}, {(void **)&lib->easy_perform, "curl_easy_perform"},
        {(void **)&lib->easy_strerror, "curl_easy_strerror"}, {(void **)&lib->easy_setopt, "curl_easy_setopt"},
        {(void **)&lib->easy_getinfo, "curl_easy_getinfo"}, {(void **)&lib->slist_append, "curl_slist_append"},
        {(void **)&lib->slist_free_all, "curl_slist_free_all"}, {(void **)&lib->mime_init, "curl_mime_init"},
        {(void **)&lib->mime_addpart, "curl_mime_addpart"}, {(void **)&lib->mime_name, "curl_mime_name"},
        {(void **)&lib->mime_data, "curl_mime_data"}, {(void **)&lib->mime_filedata, "curl_mime_filedata"},
        {(void **)&lib->mime_filename, "curl_mime_filename"}, {(void **)&lib->mime_type, "curl_mime_type"},
        {(void **)&lib->mime_free, "curl_mime_free"},
    };
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (!find(lib, functions[i].slot, functions[i].name, error, error_size)) {
            rg_curl_close(lib);
            return NULL;
        }
    }
    return lib;
}

void rg_curl_close(rg_curl *lib) {
    if (lib == NULL) return;
    dlclose(lib->handle);
    free(lib);
}

CURLcode rg_curl_global_init(rg_curl *lib) { return lib->global_init(CURL_GLOBAL_DEFAULT); }
CURL *rg_curl_easy_init(rg_curl *lib) { return lib->easy_init(); }
void rg_curl_easy_cleanup(rg_curl *lib, CURL *curl) { lib->easy_cleanup(curl); }
CURLcode rg_curl_easy_perform(rg_curl *lib, CURL *curl) { return lib->easy_perform(curl); }
const char *rg_curl_easy_strerror(rg_curl *lib, CURLcode code) { return lib->easy_strerror(code); }

CURLcode rg_curl_set_long(rg_curl *lib, CURL *curl, CURLoption option, long value) {
    return lib->easy_setopt(curl, option, value);
}
CURLcode rg_curl_set_string(rg_curl *lib, CURL *curl, CURLoption option, const char *value) {
    return lib->easy_setopt(curl, option, value);
}
CURLcode rg_curl_set_pointer(rg_curl *lib, CURL *curl, CURLoption option, void *value) {
    return lib->easy_setopt(curl, option, value);
}
CURLcode rg_curl_set_callback(rg_curl *lib, CURL *curl, CURLoption option, rg_curl_data_callback callback) {
    return lib->easy_setopt(curl, option, callback);
}
CURLcode rg_curl_response_code(rg_curl *lib, CURL *curl, long *status) {
    return lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
}

struct curl_slist *rg_curl_slist_append(rg_curl *lib, struct curl_slist *list, const char *text) {
    return lib->slist_append(list, text);
}
void rg_curl_slist_free_all(rg_curl *lib, struct curl_slist *list) { lib->slist_free_all(list); }
curl_mime *rg_curl_mime_init(rg_curl *lib, CURL *curl) { return lib->mime_init(curl); }

int rg_curl_mime_add(rg_curl *lib, curl_mime *mime, const char *name, const char *value, const char *path,
                     const char *file_name, const char *content_type) {
    curl_mimepart *part = lib->mime_addpart(mime);
    if (part == NULL) return CURLE_OUT_OF_MEMORY;
    CURLcode result = lib->mime_name(part, name);
    if (result == CURLE_OK && path == NULL) result = lib->mime_data(part, value, CURL_ZERO_TERMINATED);
    if (result == CURLE_OK && path != NULL) result = lib->mime_filedata(part, path); /* streamed as it is sent */
    if (result == CURLE_OK && file_name != NULL) result = lib->mime_filename(part, file_name);
    if (result == CURLE_OK && content_type != NULL) result = lib->mime_type(part, content_type);
    return result;
}

void rg_curl_mime_free(rg_curl *lib, curl_mime *mime) { lib->mime_free(mime); }
