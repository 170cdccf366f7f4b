/* A minimal code step (APP spec 4.1): read all of stdin, print {"output": ...} on stdout.
 *
 *   step            prints {"output": 1}
 *   step BYTES      prints {"output": "xxx..."}, a string of BYTES characters
 *
 * stdin is read and dropped in 64 KiB chunks and the string is written the same way, so the
 * program's own memory stays at a few hundred KiB whatever the sizes: the peak memory the
 * benchmark measures (the maximum over app-run and its children) is app-run's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    static char chunk[65536];
    while (fread(chunk, 1, sizeof chunk, stdin) > 0) {
    }
    if (argc < 2) {
        fputs("{\"output\": 1}\n", stdout);
        return 0;
    }
    long long left = atoll(argv[1]);
    memset(chunk, 'x', sizeof chunk);
    fputs("{\"output\": \"", stdout);
    while (left > 0) {
        size_t n = left < (long long)sizeof chunk ? (size_t)left : sizeof chunk;
        fwrite(chunk, 1, n, stdout);
        left -= (long long)n;
    }
    fputs("\"}\n", stdout);
    return ferror(stdout) ? 1 : 0;
}
