/* xgpu_buffer_native / xgpu_queue_native on OpenCL: the handles are the
 * real cl_mem and cl_command_queue, and work enqueued through OpenCL on the
 * native queue is ordered with xgpu's own. */
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(native_handles_are_the_opencl_objects),
    };
    return cmocka_run_group_tests_name("opencl_interop", tests, NULL, NULL);
}
