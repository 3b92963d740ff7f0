/* libcurl, loaded only when an upload is configured (dlopen): its twenty-odd libraries (Kerberos, LDAP, GnuTLS,
 * SSH...) cost half a megabyte of memory the kernel cannot take back, which a rider with no training site
 * configured must not pay. The header is libcurl's own; nothing links against it. curl_easy_setopt and
 * curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per kind of value. */
#ifndef RIDEGATE_CURL_SHIM_H
#define RIDEGATE_CURL_SHIM_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct rg_curl rg_curl;

/* libcurl.so.4 loaded and its functions found, or NULL with the reason in `error`. */
rg_curl *rg_curl_open(char *error, size_t error_size);
void rg_curl_close(rg_curl *lib);

CURLcode rg_curl_global_init(rg_curl *lib);
CURL *rg_curl_easy_init(rg_curl *lib);
void rg_curl_easy_cleanup(rg_curl *lib, CURL *curl);
CURLcode rg_curl_easy_perform(rg_curl *lib, CURL *curl);
const char *rg_curl_easy_strerror(rg_curl *lib, CURLcode code);
CURLcode rg_curl_set_long(rg_curl *lib, CURL *curl, CURLoption option, long value);
CURLcode rg_curl_set_string(rg_curl *lib, CURL *curl, CURLoption option, const char *value);
CURLcode rg_curl_set_pointer(rg_curl *lib, CURL *curl, CURLoption option, void *value);
typedef size_t (*rg_curl_data_callback)(char *data, size_t size, size_t count, void *context);
CURLcode rg_curl_set_callback(rg_curl *lib, CURL *curl, CURLoption option, rg_curl_data_callback callback);
CURLcode rg_curl_response_code(rg_curl *lib, CURL *curl, long *status);
struct curl_slist *rg_curl_slist_append(rg_curl *lib, struct curl_slist *list, const char *text);
void rg_curl_slist_free_all(rg_curl *lib, struct curl_slist *list);
curl_mime *rg_curl_mime_init(rg_curl *lib, CURL *curl);
/* A part: a field (`path` NULL, `value` its text) or a file streamed from `path`. 0, or a CURLcode. */
int rg_curl_mime_add(rg_curl *lib, curl_mime *mime, const char *name, const char *value, const char *path,
                     const char *file_name, const char *content_type);
void rg_curl_mime_free(rg_curl *lib, curl_mime *mime);

#endif
