/* Looking up the built-in PTX of a library kernel. */
#include "cuda_embedded.h"

#include <string.h>

const cu_embedded *cu__embedded_find(const char *source, const char *options) {
    if (!cu__embedded_count) {
        return NULL;
    }
    char key[65];
    cu__embedded_key(source, options ? options : "", key);
    for (size_t i = 0; i < cu__embedded_count; i++) {
        if (!strcmp(cu__embedded[i].key, key)) {
            return &cu__embedded[i];
        }
    }
    return NULL;
}
