/* Element types: their sizes and names. */
#include "core_int.h"

size_t xgpu_dtype_size(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F32:
    case XGPU_I32:
        return 4;
    case XGPU_F64:
    case XGPU_I64:
    case XGPU_U64:
        return 8;
    case XGPU_F16:
        return 2;
    }
    return 0;
}

const char *xgpu_dtype_name(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F32:
        return "f32";
    case XGPU_F64:
        return "f64";
    case XGPU_F16:
        return "f16";
    case XGPU_I32:
        return "i32";
    case XGPU_I64:
        return "i64";
    case XGPU_U64:
        return "u64";
    }
    return "unknown";
}
