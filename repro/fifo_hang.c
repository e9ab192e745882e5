/* A FIFO named like a cache entry: the next build of that program blocks
 * for ever in open(2) (no O_NONBLOCK), so xgpu_program_build never returns.
 * Expected: the FIFO is refused like a directory ("not a regular file")
 * and the program is compiled. Exit 0 when it held, 1 when it hung. */
#include "common.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "FAIL: xgpu_program_build still blocked after 20 s (FIFO entry)\n";
    write(2, msg, sizeof msg - 1);
    _exit(1);
}

int main(void) {
    char dir[] = "/tmp/xgpu-repro-fifo-XXXXXX", entry[512];
    if (!mkdtemp(dir)) {
        return 2;
    }
    setenv("XGPU_CACHE_DIR", dir, 1);
    r_open();
    if (r_build(r_source, NULL) != 0 || !r_entry(dir, entry, sizeof entry)) {
        fprintf(stderr, "no entry stored\n");
        return 2;
    }
    unlink(entry);
    if (mkfifo(entry, 0600) != 0) {
        perror("mkfifo");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    alarm(20);
    int r = r_build(r_source, NULL);
    alarm(0);
    printf("OK: built (%s) with a FIFO named like its entry\n", r == 1 ? "cached" : "compiled");
    r_close();
    return r < 0;
}
