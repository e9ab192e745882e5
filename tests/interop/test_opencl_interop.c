/* xgpu_buffer_native / xgpu_queue_native / xgpu_kernel_native on OpenCL:
 * the handles are the real cl_mem, cl_command_queue and cl_kernel, and work
 * enqueued through OpenCL on the native queue is ordered with xgpu's own. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void native_handles_are_the_opencl_objects(void **state) {
    (void)state;
    xgpu_device *dev;
    xgpu_context *ctx;
    xgpu_queue *q;
    xgpu_buffer *buf;
    assert_int_equal(xgpu_device_select("opencl", &dev), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_create(dev, &ctx), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_create(ctx, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 1000, &buf), XGPU_SUCCESS);
    void *mem = NULL, *queue = NULL;
    assert_int_equal(xgpu_buffer_native(buf, &mem), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_native(q, &queue), XGPU_SUCCESS);
    size_t size = 0;
    assert_int_equal(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL), CL_SUCCESS);
    assert_int_equal(size, 1000);
    /* Written through OpenCL without waiting, read back through xgpu: the
     * queue orders them. */
    unsigned char in[1000], out[1000];
    for (int i = 0; i < 1000; i++) {
        in[i] = (unsigned char)(i * 7 + 3);
    }
    memset(out, 0xA5, sizeof out);
    assert_int_equal(clEnqueueWriteBuffer(queue, mem, CL_FALSE, 0, sizeof in, in, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(xgpu_buffer_read(q, buf, 0, out, sizeof out, true, NULL), XGPU_SUCCESS);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(xgpu_buffer_native(buf, NULL), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_buffer_native(NULL, &mem), XGPU_ERROR_INVALID_HANDLE);
    assert_int_equal(xgpu_queue_native(NULL, &queue), XGPU_ERROR_INVALID_HANDLE);
    assert_int_equal(xgpu_buffer_release(buf), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_release(q), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_release(ctx), XGPU_SUCCESS);
}

/* The cl_kernel launched by hand with arguments of its own, then through
 * xgpu with others: each launch writes what its own arguments say. */
static void native_kernel_launches_through_opencl(void **state) {
    (void)state;
    static const char *const src = "XGPU_KERNEL void put(XGPU_GLOBAL xgpu_u32 *out, xgpu_u32 v) {\n"
                                   "    out[xgpu_global_id(0)] = v + (xgpu_u32)xgpu_global_id(0);\n"
                                   "}\n";
    xgpu_device *dev;
    xgpu_context *ctx;
    xgpu_queue *q;
    xgpu_buffer *a, *b;
    xgpu_program *p;
    xgpu_kernel *k;
    assert_int_equal(xgpu_device_select("opencl", &dev), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_create(dev, &ctx), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_create(ctx, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 64 * 4, &a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 64 * 4, &b), XGPU_SUCCESS);
    assert_int_equal(xgpu_program_build(ctx, src, NULL, &p), XGPU_SUCCESS);
    assert_int_equal(xgpu_kernel_create(p, "put", &k), XGPU_SUCCESS);
    const uint32_t poison = 0xDEADBEEFu;
    assert_int_equal(xgpu_buffer_fill(q, a, 0, 64 * 4, &poison, 4, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_fill(q, b, 0, 64 * 4, &poison, 4, NULL), XGPU_SUCCESS);

    void *kn = NULL, *qn = NULL, *an = NULL;
    assert_int_equal(xgpu_kernel_native(k, &kn), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_native(q, &qn), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_native(a, &an), XGPU_SUCCESS);
    char name[16] = "";
    assert_int_equal(clGetKernelInfo(kn, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL),
                     CL_SUCCESS);
    assert_string_equal(name, "put");
    cl_mem mem = an;
    cl_uint v = 1000;
    size_t global = 64;
    assert_int_equal(clSetKernelArg(kn, 0, sizeof mem, &mem), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(kn, 1, sizeof v, &v), CL_SUCCESS);
    assert_int_equal(clEnqueueNDRangeKernel(qn, kn, 1, NULL, &global, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
    /* xgpu's launch sets its own arguments: b and 7. */
    xgpu_range r = xgpu_range_1d(2, 32);
    xgpu_arg args[] = {xgpu_arg_buffer(b), xgpu_arg_u32(7)};
    assert_int_equal(xgpu_launch(q, k, &r, 2, args, NULL), XGPU_SUCCESS);
    uint32_t got_a[64], got_b[64];
    assert_int_equal(xgpu_buffer_read(q, a, 0, got_a, sizeof got_a, true, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_read(q, b, 0, got_b, sizeof got_b, true, NULL), XGPU_SUCCESS);
    for (uint32_t i = 0; i < 64; i++) {
        assert_int_equal(got_a[i], 1000 + i);
        assert_int_equal(got_b[i], 7 + i);
    }
    assert_int_equal(xgpu_kernel_native(k, NULL), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_kernel_native(NULL, &kn), XGPU_ERROR_INVALID_HANDLE);
    assert_int_equal(xgpu_kernel_release(k), XGPU_SUCCESS);
    assert_int_equal(xgpu_program_release(p), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(a), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(b), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_release(q), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_release(ctx), XGPU_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(native_handles_are_the_opencl_objects),
        cmocka_unit_test(native_kernel_launches_through_opencl),
    };
    return cmocka_run_group_tests_name("opencl_interop", tests, NULL, NULL);
}
