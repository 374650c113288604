/* libFuzzer harness for the probe's command line: the input is split on
 * NUL bytes into argv; parsing and resolving must never crash, and every
 * refusal must come with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg_private/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[64];
    int argc = 0;
    argv[argc++] = "rtgauge-probe";
    for (char *p = copy; p < copy + size + 1 && argc < 63;) {
        argv[argc++] = p;
        p += strlen(p) + 1;
    }
    argv[argc] = NULL;
    static struct rtg_config cfg;
    char err[512] = "";
    int rc = rtg_cli_parse(argc, argv, &cfg, err, sizeof err);
    if (rc == 0)
        rc = rtg_cli_resolve(&cfg, err, sizeof err);
    if (rc != 0 && (rc != 2 || err[0] == '\0' || strchr(err, '\n')))
        abort(); /* a refusal is code 2 with one line */
    free(copy);
    return 0;
}
