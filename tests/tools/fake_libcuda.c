/* A library named as a driver's libcuda.so.1 (libcuda.so.550.54.15, soname
 * libcuda.so.1) for the version the health facts read in that file name;
 * nothing calls it. */
#define FAKE_API __attribute__((visibility("default")))

FAKE_API int cuDriverGetVersion(int *version) {
    *version = 12040;
    return 0;
}
